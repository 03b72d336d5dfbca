package i18n

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// withoutCatalogue takes lang's catalogue and any source away for the
// test, as in the browser build before the page hands the catalogue over,
// and puts them back after.
func withoutCatalogue(t *testing.T, lang string) {
	t.Helper()
	mu.Lock()
	saved, had := catalogues[lang]
	savedSource := source
	delete(catalogues, lang)
	source = nil
	failed = map[string]bool{}
	mu.Unlock()
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		if had {
			catalogues[lang] = saved
		} else {
			delete(catalogues, lang)
		}
		source = savedSource
		failed = map[string]bool{}
	})
}

// zhText is zh.txt read from disk (the browser build does not embed it).
func zhText(t *testing.T) (text, play string) {
	t.Helper()
	b, err := os.ReadFile("zh.txt")
	if err != nil {
		t.Fatal(err)
	}
	c, errs := parse("zh.txt", string(b))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return string(b), c.entries["ui.play"].value
}

// A catalogue that is not there is English until the source supplies it,
// and the source is asked once.
func TestSourceOnDemand(t *testing.T) {
	withoutCatalogue(t, "zh")
	text, play := zhText(t)
	if Loaded("zh") {
		t.Fatal("Loaded(zh) = true with the catalogue taken away")
	}
	if got := T("zh", "ui.play"); got != "Play" {
		t.Errorf("T(zh, ui.play) without a catalogue or a source = %q, want English", got)
	}
	calls := 0
	SetSource(func(lang string) (string, error) {
		calls++
		if lang != "zh" {
			t.Errorf("source asked for %q", lang)
		}
		return text, nil
	})
	for range 3 {
		if got := T("zh", "ui.play"); got != play {
			t.Errorf("T(zh, ui.play) = %q, want %q from the source", got, play)
		}
	}
	if !Has("zh", "ui.play") || !Loaded("zh") {
		t.Error("zh not loaded after the source gave it")
	}
	if T("fr", "ui.play") != "Play" || T("en", "ui.play") != "Play" {
		t.Error("English or an unknown language changed")
	}
	if calls != 1 {
		t.Errorf("source called %d times, want once", calls)
	}
}

// A source that fails is asked once; the language stays English until
// Load gives it.
func TestSourceFails(t *testing.T) {
	withoutCatalogue(t, "zh")
	text, play := zhText(t)
	calls := 0
	SetSource(func(string) (string, error) {
		calls++
		return "", errors.New("offline")
	})
	for range 3 {
		if got := T("zh", "ui.play"); got != "Play" {
			t.Errorf("T(zh, ui.play) with a failing source = %q, want English", got)
		}
	}
	if calls != 1 {
		t.Errorf("failing source called %d times, want once", calls)
	}
	if err := Load("zh", text); err != nil {
		t.Fatal(err)
	}
	if got := T("zh", "ui.play"); got != play {
		t.Errorf("T(zh, ui.play) after Load = %q, want %q", got, play)
	}
}

func TestLoad(t *testing.T) {
	withoutCatalogue(t, "zh")
	if err := Load("xx", "ui.play = x"); err == nil || !strings.Contains(err.Error(), `unknown language "xx"`) {
		t.Errorf("Load(xx) = %v, want an unknown-language error", err)
	}
	err := Load("zh", "no equals sign\nui.play = 播放\n")
	if err == nil || !strings.Contains(err.Error(), "zh.txt:1: missing '='") {
		t.Errorf("Load of a malformed line = %v, want zh.txt:1 named", err)
	}
	if got := T("zh", "ui.play"); got != "播放" {
		t.Errorf("T(zh, ui.play) = %q, want the good line kept", got)
	}
	if got := T("zh", "ui.pause"); got != "⟦ui.pause⟧" {
		t.Errorf("T(zh, ui.pause) = %q, want the missing key shown", got)
	}
}
