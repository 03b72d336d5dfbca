//go:build i18nfetch

package i18n

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
)

// What the browser build had before anything was loaded.
var atStart struct {
	enErr, zhErr       error
	enLoaded, zhLoaded bool
	errs               int
	play               string
}

// TestMain records the browser build's state at start, then loads English
// from disk as the page would hand it over, for the tests shared with
// the native build (make test runs this package with -tags i18nfetch).
func TestMain(m *testing.M) {
	_, atStart.enErr = fs.ReadFile(files, "en.txt")
	_, atStart.zhErr = fs.ReadFile(files, "zh.txt")
	atStart.enLoaded, atStart.zhLoaded, atStart.errs = Loaded("en"), Loaded("zh"), len(loadErrs)
	atStart.play = T("en", "ui.play")
	b, err := os.ReadFile("en.txt")
	if err == nil {
		err = Load("en", string(b))
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// The browser build embeds no catalogue: main.wasm carries none of their
// text, and without a source a key reads ⟦key⟧.
func TestFetchBuildEmbedsNoCatalogue(t *testing.T) {
	if atStart.enErr == nil || atStart.zhErr == nil {
		t.Errorf("a catalogue is embedded in the i18nfetch build (en: %v, zh: %v)", atStart.enErr, atStart.zhErr)
	}
	if atStart.enLoaded || atStart.zhLoaded || atStart.errs > 0 {
		t.Errorf("loaded at start: en %v, zh %v (errors: %d)", atStart.enLoaded, atStart.zhLoaded, atStart.errs)
	}
	if atStart.play != "⟦ui.play⟧" {
		t.Errorf("T(en, ui.play) with no catalogue = %q", atStart.play)
	}
}

// English comes from the source like any language, once; a language the
// source cannot give falls back to it; with neither, keys read ⟦key⟧.
func TestEnglishFromSource(t *testing.T) {
	withoutCatalogue(t, "en")
	withoutCatalogue(t, "zh")
	b, err := os.ReadFile("en.txt")
	if err != nil {
		t.Fatal(err)
	}
	asked := map[string]int{}
	SetSource(func(lang string) (string, error) {
		asked[lang]++
		if lang == "en" {
			return string(b), nil
		}
		return "", errors.New("offline")
	})
	for range 2 {
		if got := T("zh", "ui.play"); got != "Play" {
			t.Errorf("T(zh, ui.play) with zh offline = %q, want English", got)
		}
	}
	if T("en", "ui.play") != "Play" || asked["en"] != 1 || asked["zh"] != 1 {
		t.Errorf("T(en, ui.play) = %q; the source asked %v, want each once", T("en", "ui.play"), asked)
	}
	withoutCatalogue(t, "en")
	SetSource(func(string) (string, error) { return "", errors.New("offline") })
	if got := T("en", "ui.play"); got != "⟦ui.play⟧" {
		t.Errorf("T(en, ui.play) with nothing to read = %q", got)
	}
}
