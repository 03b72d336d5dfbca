package sitegen

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/scenarios"
)

func TestGenerate(t *testing.T) {
	dist := t.TempDir()
	index, err := os.ReadFile(filepath.Join("..", "..", "site", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dist, "index.html"), index, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Generate(dist, "https://sim.example/course"); err != nil {
		t.Fatal(err)
	}
	for _, s := range scenarios.All() {
		var o OEmbed
		raw, err := os.ReadFile(filepath.Join(dist, "oembed", s.ID+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatalf("%s.json: %v", s.ID, err)
		}
		if o.Version != "1.0" || o.Type != "rich" || o.Width != FrameWidth || o.Height != FrameHeight || o.Title == "" || o.ProviderURL != "https://sim.example/course/" {
			t.Errorf("%s.json: %+v", s.ID, o)
		}
		src := regexp.MustCompile(`src="([^"]+)"`).FindStringSubmatch(o.HTML)
		if src == nil || !strings.HasPrefix(src[1], "https://sim.example/course/embed.html#scenario="+s.ID+"&amp;") {
			t.Errorf("%s.json: html %q does not frame the lesson at the base", s.ID, o.HTML)
		}
		for _, want := range []string{`loading="lazy"`, `allow="fullscreen"`, `aspect-ratio:16/10`} {
			if !strings.Contains(o.HTML, want) {
				t.Errorf("%s.json: html lacks %s", s.ID, want)
			}
		}
		page, err := os.ReadFile(filepath.Join(dist, s.ID+".html"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			`<link rel="alternate" type="application/json+oembed" href="https://sim.example/course/oembed/` + s.ID + `.json"`,
			`data-lesson="` + s.ID + `"`, `<link rel="canonical" href="https://sim.example/course/` + s.ID + `.html">`,
		} {
			if !strings.Contains(string(page), want) {
				t.Errorf("%s.html lacks %s", s.ID, want)
			}
		}
	}
}

func TestCheckBase(t *testing.T) {
	if b, err := CheckBase("http://localhost:8080"); err != nil || b != "http://localhost:8080/" {
		t.Errorf("CheckBase: %q, %v", b, err)
	}
	for _, bad := range []string{"", "localhost:8080", "/gpuscope/", "ftp://x/", "https://x/?q=1", "https://x/#f"} {
		if _, err := CheckBase(bad); err == nil || !strings.HasPrefix(err.Error(), "base:") {
			t.Errorf("CheckBase(%q) = %v; want an error naming base", bad, err)
		}
	}
}

func TestSharePageNeedsItsTemplate(t *testing.T) {
	if _, err := SharePage("<html></html>", "roofline", "T", "S", "http://x/", ""); err == nil {
		t.Error("SharePage of a page without <title> and body class: want an error")
	}
}
