// Package sitegen writes the parts of the static site that are made from
// the lessons at build time: one share page per lesson (the simulator page
// opening on that lesson, with the oEmbed discovery tag and a preview
// image for link unfurlers) and one oEmbed JSON file per lesson, so that a
// blog platform that speaks oEmbed turns a pasted lesson link into the
// embedded simulator.
//
// oEmbed needs absolute URLs, so the site's public address is an input
// (make build BASE_URL=https://example.org/gpuscope/); it defaults to the
// local server's.
package sitegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"image"
	_ "image/png" // poster sizes
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// DefaultBase is the address make serve serves the site on.
const DefaultBase = "http://localhost:8080/"

// Embed frame size advertised by oEmbed (16:10, as the snippet's
// aspect-ratio).
const (
	FrameWidth  = 800
	FrameHeight = 500
)

// OEmbed is an oEmbed 1.0 "rich" response.
type OEmbed struct {
	Version         string `json:"version"`
	Type            string `json:"type"`
	ProviderName    string `json:"provider_name"`
	ProviderURL     string `json:"provider_url"`
	Title           string `json:"title"`
	HTML            string `json:"html"`
	Width           int    `json:"width"`
	Height          int    `json:"height"`
	ThumbnailURL    string `json:"thumbnail_url,omitempty"`
	ThumbnailWidth  int    `json:"thumbnail_width,omitempty"`
	ThumbnailHeight int    `json:"thumbnail_height,omitempty"`
}

// CheckBase returns base as an absolute http(s) URL ending in "/", or an
// error naming the flag.
func CheckBase(base string) (string, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("base: %q is not an absolute http(s) URL such as %s", base, DefaultBase)
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	return base, nil
}

// Generate writes DIST/ID.html and DIST/oembed/ID.json for every lesson.
// DIST must already hold index.html (the template of the share pages) and
// the posters.
func Generate(dist, base string) error {
	base, err := CheckBase(base)
	if err != nil {
		return err
	}
	tmpl, err := os.ReadFile(filepath.Join(dist, "index.html"))
	if err != nil {
		return fmt.Errorf("dist: %w (run make build first)", err)
	}
	if err := os.MkdirAll(filepath.Join(dist, "oembed"), 0o755); err != nil {
		return err
	}
	for _, s := range scenarios.All() {
		st := scenarios.State{Scenario: s.ID, Step: 1, Lang: i18n.Fallback, Config: s.Defaults()}
		title := i18n.T(i18n.Fallback, s.Title)
		poster := "posters/" + s.ID + "-light.png"
		o := OEmbed{
			Version: "1.0", Type: "rich", ProviderName: "gpuscope", ProviderURL: base,
			Title: title, HTML: scenarios.Snippet(base, st), Width: FrameWidth, Height: FrameHeight,
		}
		if w, h, err := pngSize(filepath.Join(dist, poster)); err == nil {
			o.ThumbnailURL, o.ThumbnailWidth, o.ThumbnailHeight = base+poster, w, h
		}
		var js bytes.Buffer
		enc := json.NewEncoder(&js)
		enc.SetEscapeHTML(false) // the html field reads as the snippet it is
		enc.SetIndent("", "  ")
		if err := enc.Encode(o); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dist, "oembed", s.ID+".json"), js.Bytes(), 0o644); err != nil {
			return err
		}
		page, err := SharePage(string(tmpl), s.ID, title, i18n.T(i18n.Fallback, "lesson."+s.ID+".summary"), base, o.ThumbnailURL)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dist, s.ID+".html"), []byte(page), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// SharePage is the simulator page (index.html) opening on lesson id: its
// title, description, canonical link, preview image, the oEmbed discovery
// tag, and data-lesson on <body> (the lesson to open when the address has
// no scenario in its fragment).
func SharePage(index, id, title, summary, base, image string) (string, error) {
	e := html.EscapeString
	var head strings.Builder
	fmt.Fprintf(&head, "<link rel=\"canonical\" href=\"%s\">\n", e(base+id+".html"))
	fmt.Fprintf(&head, "<link rel=\"alternate\" type=\"application/json+oembed\" href=\"%s\" title=\"%s\">\n", e(base+"oembed/"+id+".json"), e(title))
	fmt.Fprintf(&head, "<meta property=\"og:title\" content=\"%s\">\n", e(title))
	fmt.Fprintf(&head, "<meta property=\"og:description\" content=\"%s\">\n", e(summary))
	fmt.Fprintf(&head, "<meta property=\"og:url\" content=\"%s\">\n", e(base+id+".html"))
	if image != "" {
		fmt.Fprintf(&head, "<meta property=\"og:image\" content=\"%s\">\n", e(image))
	}
	out := index
	for _, r := range []struct{ old, new string }{
		{"<title>gpuscope</title>", "<title>" + e(title) + " · gpuscope</title>\n" + head.String()},
		{`<body class="page-full">`, `<body class="page-full" data-lesson="` + e(id) + `">`},
	} {
		if !strings.Contains(out, r.old) {
			return "", fmt.Errorf("index.html: no %q to replace", r.old)
		}
		out = strings.Replace(out, r.old, r.new, 1)
	}
	return out, nil
}

func pngSize(path string) (int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	c, _, err := image.DecodeConfig(f)
	return c.Width, c.Height, err
}
