// Package server serves the built static site (site/dist) over HTTP.
//
// It is the handler behind `gpuscope serve` and the browser tests. Compared
// with http.FileServer it fixes the content types that matter for the site
// (application/wasm, text/javascript), serves a precompressed "X.br" or
// "X.gz" beside "X" to clients that accept brotli or gzip (brotli first),
// never lists directories, hides dotfiles,
// asks browsers to revalidate every file (the names carry no content
// hash, so a rebuilt main.wasm must not be served stale from a cache), and
// sends a Content Security Policy with every response.
package server

import (
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
)

// contentTypes overrides the platform's MIME table, which varies between
// machines and may lack .wasm.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".wasm": "application/wasm",
	".json": "application/json",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".jpg":  "image/jpeg",
	".webp": "image/webp",
	".ico":  "image/x-icon",
	".txt":  "text/plain; charset=utf-8",
	".gz":   "application/gzip",
}

// ContentSecurityPolicy is sent with every response. Scripts come only
// from the site itself, with WebAssembly compilation allowed
// ('wasm-unsafe-eval'; no eval, no inline script, no inline event
// handlers); styles may also be inline, because the pages set element
// styles from script and Ebiten styles its canvas; images and media may be
// data: and blob: URLs (the PNG and WebM exports); plugins are off, and
// <base> and form targets stay on the site. There is no frame-ancestors
// restriction: blogs embed embed.html in an iframe.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
	"img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'"

// UncompressedLengthHeader carries the decoded size of a body sent with
// Content-Encoding: br or gzip, so that the page's loader can show real
// progress.
const UncompressedLengthHeader = "X-Uncompressed-Length"

// Handler returns an http.Handler serving the files under dir.
// "/" and any directory serve that directory's index.html.
func Handler(dir string) http.Handler {
	return &handler{dir: dir}
}

type handler struct {
	dir string
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// On every response, errors and redirects included.
	w.Header().Set("Content-Security-Policy", ContentSecurityPolicy)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "405 method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := path.Clean("/" + r.URL.Path)
	if hasDotSegment(name) {
		http.NotFound(w, r)
		return
	}
	name = strings.TrimPrefix(name, "/")
	if name == "" {
		name = "."
	}

	root, err := os.OpenRoot(h.dir)
	if err != nil {
		http.Error(w, "500 site directory unavailable", http.StatusInternalServerError)
		return
	}
	defer root.Close()

	fi, err := root.Stat(name)
	if err == nil && fi.IsDir() {
		if !strings.HasSuffix(r.URL.Path, "/") {
			// Redirect so relative URLs in index.html resolve inside the
			// directory: to the cleaned path, never the raw one, whose
			// "//host/../dir" a browser reads as another site.
			http.Redirect(w, r, dirLocation(name), http.StatusMovedPermanently)
			return
		}
		name = path.Join(name, "index.html")
		fi, err = root.Stat(name)
	}
	if err != nil || !fi.Mode().IsRegular() {
		// Missing, unreadable, escaping the root through a symlink, or not
		// a plain file: all look the same from outside.
		http.NotFound(w, r)
		return
	}

	hdr := w.Header()
	hdr.Set("Content-Type", contentType(name))
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("X-Content-Type-Options", "nosniff")

	served, servedInfo := name, fi
	if ext := path.Ext(name); ext != ".gz" && ext != ".br" {
		// Precompressed copies, best first: brotli is ≈ 30% smaller than
		// gzip -9 on main.wasm.
		var copies []precompressed
		for _, c := range encodings {
			if st, err := root.Stat(name + c.suffix); err == nil && st.Mode().IsRegular() {
				copies = append(copies, precompressed{c, st})
			}
		}
		if len(copies) > 0 {
			hdr.Add("Vary", "Accept-Encoding")
		}
		if c, ok := choose(copies, r.Header.Get("Accept-Encoding")); ok {
			served, servedInfo = name+c.suffix, c.info
			hdr.Set("Content-Encoding", c.coding)
			hdr.Set(UncompressedLengthHeader, strconv.FormatInt(fi.Size(), 10))
		}
	}
	// A weak validator per representation: size and modification time.
	hdr.Set("ETag", fmt.Sprintf(`W/"%x-%x"`, servedInfo.Size(), servedInfo.ModTime().UnixNano()))

	f, err := root.Open(served)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	defer f.Close()
	http.ServeContent(w, r, served, servedInfo.ModTime(), f)
}

// dirLocation is the redirect target for a directory's cleaned name
// (relative to the root, "." for the root): an absolute path on this
// site, escaped, ending in "/". It starts with a single "/": name has no
// empty or dot segment, and a backslash, which browsers read as "/", is
// escaped.
func dirLocation(name string) string {
	if name == "." {
		return "/"
	}
	return (&url.URL{Path: "/" + name + "/"}).EscapedPath()
}

// hasDotSegment reports whether a cleaned URL path names a dotfile or a
// file inside a dot directory (.git, .well-known, editor backups).
func hasDotSegment(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return true
		}
	}
	return false
}

func contentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := contentTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// encoding is a content coding the handler serves from a precompressed
// copy, FILE+suffix.
type encoding struct {
	coding string   // the Content-Encoding token
	names  []string // the tokens that ask for it in Accept-Encoding
	suffix string
}

// encodings are in order of preference.
var encodings = []encoding{
	{"br", []string{"br"}, ".br"},
	{"gzip", []string{"gzip", "x-gzip"}, ".gz"},
}

type precompressed struct {
	encoding
	info os.FileInfo
}

// choose picks the copy to send for an Accept-Encoding header value: of
// those the client accepts (a non-zero quality, RFC 9110 section 12.5.3),
// the one with the highest quality, brotli on a tie. An absent or empty
// header gets none: the file as it is.
func choose(copies []precompressed, header string) (precompressed, bool) {
	var best precompressed
	bestQ := 0.0
	for _, c := range copies {
		if q := acceptQ(header, c.names); q > bestQ {
			best, bestQ = c, q
		}
	}
	return best, bestQ > 0
}

// acceptQ is the quality an Accept-Encoding header value gives a coding
// (any of names): its own entry's, else that of "*", else 0.
func acceptQ(header string, names []string) float64 {
	codingQ, starQ := -1.0, -1.0
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil {
					f = 0
				}
				q = f
			}
		}
		switch {
		case slices.Contains(names, coding):
			codingQ = max(codingQ, q)
		case coding == "*":
			starQ = q
		}
	}
	if codingQ >= 0 {
		return codingQ
	}
	return max(starQ, 0)
}
