package server

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// newSite writes a small site into a temp dir: an index, a script, a wasm
// file with a gzip copy, a subdirectory and a dotfile.
func newSite(t *testing.T) (dir string, wasm []byte) {
	t.Helper()
	dir = t.TempDir()
	wasm = bytes.Repeat([]byte("\x00asm\x01\x00\x00\x00"), 512)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	if _, err := zw.Write(wasm); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"index.html":         []byte("<!doctype html><title>x</title>"),
		"loader.js":          []byte("console.log(1)"),
		"style.css":          []byte("body{}"),
		"main.wasm":          wasm,
		"main.wasm.gz":       gz.Bytes(),
		"docs/index.html":    []byte("<p>docs</p>"),
		".secret":            []byte("no"),
		"docs/.hidden/x.txt": []byte("no"),
	}
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, wasm
}

func get(t *testing.T, h http.Handler, method, target string, hdr map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestHandlerContentTypes(t *testing.T) {
	dir, _ := newSite(t)
	h := Handler(dir)
	tests := []struct {
		target, wantType string
	}{
		{"/", "text/html; charset=utf-8"},
		{"/index.html", "text/html; charset=utf-8"},
		{"/loader.js", "text/javascript; charset=utf-8"},
		{"/style.css", "text/css; charset=utf-8"},
		{"/main.wasm", "application/wasm"},
		{"/docs/", "text/html; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			rec := get(t, h, http.MethodGet, tt.target, nil)
			if rec.Code != http.StatusOK {
				t.Fatalf("GET %s: status %d, want 200", tt.target, rec.Code)
			}
			if got := rec.Header().Get("Content-Type"); got != tt.wantType {
				t.Errorf("GET %s: Content-Type %q, want %q", tt.target, got, tt.wantType)
			}
			if got := rec.Header().Get("Cache-Control"); got != "no-cache" {
				t.Errorf("GET %s: Cache-Control %q, want no-cache", tt.target, got)
			}
			if got := rec.Header().Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("GET %s: X-Content-Type-Options %q, want nosniff", tt.target, got)
			}
		})
	}
}

func TestHandlerGzip(t *testing.T) {
	dir, wasm := newSite(t)
	h := Handler(dir)
	tests := []struct {
		acceptEncoding string
		wantGzip       bool
	}{
		{"", false},
		{"gzip", true},
		{"gzip, deflate, br, zstd", true},
		{"br;q=1.0, gzip;q=0.5", true},
		{"gzip;q=0", false},
		{"deflate", false},
		{"*", true},
		{"*;q=0", false},
		{"*, gzip;q=0", false},
		{"GZIP", true},
	}
	for _, tt := range tests {
		t.Run(tt.acceptEncoding, func(t *testing.T) {
			rec := get(t, h, http.MethodGet, "/main.wasm", map[string]string{"Accept-Encoding": tt.acceptEncoding})
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d, want 200", rec.Code)
			}
			if got := rec.Header().Get("Content-Type"); got != "application/wasm" {
				t.Errorf("Content-Type %q, want application/wasm", got)
			}
			if got := rec.Header().Get("Vary"); got != "Accept-Encoding" {
				t.Errorf("Vary %q, want Accept-Encoding", got)
			}
			body := rec.Body.Bytes()
			if tt.wantGzip {
				if got := rec.Header().Get("Content-Encoding"); got != "gzip" {
					t.Fatalf("Content-Encoding %q, want gzip", got)
				}
				if got, want := rec.Header().Get(UncompressedLengthHeader), strconv.Itoa(len(wasm)); got != want {
					t.Errorf("%s %q, want %q", UncompressedLengthHeader, got, want)
				}
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("body is not gzip: %v", err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatalf("reading gzip body: %v", err)
				}
			} else if got := rec.Header().Get("Content-Encoding"); got != "" {
				t.Errorf("Content-Encoding %q, want none", got)
			}
			if !bytes.Equal(body, wasm) {
				t.Errorf("decoded body differs from main.wasm (%d bytes, want %d)", len(body), len(wasm))
			}
		})
	}
}

func TestHandlerNoGzipCopy(t *testing.T) {
	dir, _ := newSite(t)
	rec := get(t, Handler(dir), http.MethodGet, "/loader.js", map[string]string{"Accept-Encoding": "gzip"})
	if got := rec.Header().Get("Content-Encoding"); got != "" {
		t.Errorf("Content-Encoding %q for a file without .gz copy, want none", got)
	}
	if got := rec.Header().Get("Vary"); got != "" {
		t.Errorf("Vary %q for a file without .gz copy, want none", got)
	}
}

func TestHandlerNotFound(t *testing.T) {
	dir, _ := newSite(t)
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	h := Handler(dir)
	for _, target := range []string{
		"/nope.html",
		"/.secret",
		"/docs/.hidden/x.txt",
		"/../../etc/passwd",
		"/escape.txt",
	} {
		rec := get(t, h, http.MethodGet, target, nil)
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", target, rec.Code)
		}
	}
}

func TestHandlerDirectoryRedirect(t *testing.T) {
	dir, _ := newSite(t)
	rec := get(t, Handler(dir), http.MethodGet, "/docs", nil)
	if rec.Code != http.StatusMovedPermanently {
		t.Fatalf("GET /docs: status %d, want 301", rec.Code)
	}
	if got := rec.Header().Get("Location"); got != "/docs/" {
		t.Errorf("GET /docs: Location %q, want /docs/", got)
	}
}

// A directory's redirect goes to the cleaned path on this site, whatever
// the request line held: never "//host/…" or "/\\host/…", which a browser
// follows to another site (issue 36). The requests are written raw on a
// real connection, as Go's client would clean them first.
func TestHandlerRedirectStaysOnSite(t *testing.T) {
	dir, _ := newSite(t)
	if err := os.MkdirAll(filepath.Join(dir, `back\slash`), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()
	tests := []struct{ target, want string }{
		{"/docs", "/docs/"},
		{"//evil.example/../docs", "/docs/"},
		{"/%2fevil.example/../docs", "/docs/"},
		{"/%2Fevil.example/%2e%2e/docs", "/docs/"},
		{"/%5cevil.example/../docs", "/docs/"},
		{`/\evil.example/../docs`, "/docs/"},
		{"///docs", "/docs/"},
		{"//evil.example/..", "/"},
		{"/docs/../docs", "/docs/"},
		{"/back%5Cslash", "/back%5Cslash/"},
		{"//docs?x=1", "/docs/"},
	}
	for _, tt := range tests {
		resp := rawGet(t, srv.Listener.Addr().String(), tt.target)
		loc := resp.Header.Get("Location")
		if resp.StatusCode != http.StatusMovedPermanently || loc != tt.want {
			t.Errorf("GET %s: %d, Location %q; want 301 to %q", tt.target, resp.StatusCode, loc, tt.want)
		}
		if !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, `/\`) {
			t.Errorf("GET %s: Location %q leaves the site", tt.target, loc)
		}
	}
}

// rawGet sends "GET target HTTP/1.1" as written and reads the response.
func rawGet(t *testing.T, addr, target string) *http.Response {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: site.test\r\nConnection: close\r\n\r\n", target); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", target, err)
	}
	resp.Body.Close()
	return resp
}

func TestHandlerMethods(t *testing.T) {
	dir, _ := newSite(t)
	h := Handler(dir)
	if rec := get(t, h, http.MethodHead, "/main.wasm", nil); rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Errorf("HEAD /main.wasm: status %d, body %d bytes; want 200 and empty", rec.Code, rec.Body.Len())
	}
	rec := get(t, h, http.MethodPost, "/index.html", nil)
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: status %d, want 405", rec.Code)
	}
	if got := rec.Header().Get("Allow"); got != "GET, HEAD" {
		t.Errorf("POST: Allow %q, want %q", got, "GET, HEAD")
	}
}

func TestHandlerRevalidation(t *testing.T) {
	dir, _ := newSite(t)
	h := Handler(dir)
	first := get(t, h, http.MethodGet, "/main.wasm", map[string]string{"Accept-Encoding": "gzip"})
	etag := first.Header().Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	plain := get(t, h, http.MethodGet, "/main.wasm", nil)
	if plain.Header().Get("ETag") == etag {
		t.Errorf("gzip and identity representations share ETag %s", etag)
	}
	again := get(t, h, http.MethodGet, "/main.wasm", map[string]string{"Accept-Encoding": "gzip", "If-None-Match": etag})
	if again.Code != http.StatusNotModified {
		t.Errorf("conditional GET: status %d, want 304", again.Code)
	}
}

func TestHandlerMissingDir(t *testing.T) {
	rec := get(t, Handler(filepath.Join(t.TempDir(), "absent")), http.MethodGet, "/", nil)
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("status %d, want 500", rec.Code)
	}
}

// Every response carries the Content Security Policy: pages, scripts,
// wasm (plain and gzip), redirects, 404s, 405s and 304s.
func TestHandlerContentSecurityPolicy(t *testing.T) {
	const want = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; " +
		"img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'"
	if ContentSecurityPolicy != want {
		t.Fatalf("ContentSecurityPolicy = %q, want %q", ContentSecurityPolicy, want)
	}
	dir, _ := newSite(t)
	h := Handler(dir)
	etag := get(t, h, http.MethodGet, "/index.html", nil).Header().Get("ETag")
	for _, tt := range []struct {
		method, target string
		hdr            map[string]string
		code           int
	}{
		{http.MethodGet, "/", nil, http.StatusOK},
		{http.MethodGet, "/index.html", nil, http.StatusOK},
		{http.MethodGet, "/loader.js", nil, http.StatusOK},
		{http.MethodGet, "/main.wasm", map[string]string{"Accept-Encoding": "gzip"}, http.StatusOK},
		{http.MethodHead, "/main.wasm", nil, http.StatusOK},
		{http.MethodGet, "/index.html", map[string]string{"If-None-Match": etag}, http.StatusNotModified},
		{http.MethodGet, "/docs", nil, http.StatusMovedPermanently},
		{http.MethodGet, "/nope.html", nil, http.StatusNotFound},
		{http.MethodGet, "/.secret", nil, http.StatusNotFound},
		{http.MethodPost, "/index.html", nil, http.StatusMethodNotAllowed},
	} {
		rec := get(t, h, tt.method, tt.target, tt.hdr)
		if rec.Code != tt.code {
			t.Errorf("%s %s: status %d, want %d", tt.method, tt.target, rec.Code, tt.code)
		}
		if got := rec.Header().Values("Content-Security-Policy"); len(got) != 1 || got[0] != want {
			t.Errorf("%s %s: Content-Security-Policy %q, want %q once", tt.method, tt.target, got, want)
		}
	}
	rec := get(t, Handler(filepath.Join(t.TempDir(), "absent")), http.MethodGet, "/", nil)
	if rec.Header().Get("Content-Security-Policy") != want {
		t.Error("a 500 lacks the Content Security Policy")
	}
}

// With a brotli copy beside the gzip one, a client that accepts br gets
// it, unless it rates gzip higher; one that accepts only gzip gets gzip.
func TestHandlerBrotli(t *testing.T) {
	dir, wasm := newSite(t)
	br := []byte("not really brotli, but the handler never decodes it")
	if err := os.WriteFile(filepath.Join(dir, "main.wasm.br"), br, 0o644); err != nil {
		t.Fatal(err)
	}
	gz, err := os.ReadFile(filepath.Join(dir, "main.wasm.gz"))
	if err != nil {
		t.Fatal(err)
	}
	h := Handler(dir)
	tests := []struct {
		acceptEncoding string
		want           string // Content-Encoding
	}{
		{"", ""},
		{"identity", ""},
		{"br", "br"},
		{"gzip", "gzip"},
		{"gzip, deflate, br, zstd", "br"}, // Chromium's
		{"gzip, deflate, br", "br"},
		{"br;q=0.5, gzip", "gzip"},
		{"br;q=1.0, gzip;q=0.5", "br"},
		{"br;q=0, gzip", "gzip"},
		{"br, gzip;q=0", "br"},
		{"br;q=0, gzip;q=0", ""},
		{"*", "br"},
		{"*;q=0.5, gzip", "gzip"},
		{"*, br;q=0", "gzip"},
		{"BR", "br"},
		{"deflate", ""},
	}
	etags := map[string]string{}
	for _, tt := range tests {
		t.Run(tt.acceptEncoding, func(t *testing.T) {
			rec := get(t, h, http.MethodGet, "/main.wasm", map[string]string{"Accept-Encoding": tt.acceptEncoding})
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d, want 200", rec.Code)
			}
			hdr := rec.Header()
			if got := hdr.Get("Content-Encoding"); got != tt.want {
				t.Errorf("Content-Encoding %q, want %q", got, tt.want)
			}
			if got := hdr.Get("Content-Type"); got != "application/wasm" {
				t.Errorf("Content-Type %q, want application/wasm", got)
			}
			if got := hdr.Values("Vary"); len(got) != 1 || got[0] != "Accept-Encoding" {
				t.Errorf("Vary %q, want Accept-Encoding once", got)
			}
			want := map[string][]byte{"": wasm, "br": br, "gzip": gz}[tt.want]
			if !bytes.Equal(rec.Body.Bytes(), want) {
				t.Errorf("body: %d bytes, want the %q copy's %d", rec.Body.Len(), tt.want, len(want))
			}
			if u := hdr.Get(UncompressedLengthHeader); tt.want != "" && u != strconv.Itoa(len(wasm)) {
				t.Errorf("%s %q, want %d", UncompressedLengthHeader, u, len(wasm))
			}
			etags[tt.want] = hdr.Get("ETag")
		})
	}
	if etags["br"] == etags["gzip"] || etags["br"] == etags[""] {
		t.Errorf("ETags %q are not one per representation", etags)
	}

	// HEAD says the same, without a body.
	rec := get(t, h, http.MethodHead, "/main.wasm", map[string]string{"Accept-Encoding": "br"})
	if rec.Header().Get("Content-Encoding") != "br" || rec.Body.Len() != 0 {
		t.Errorf("HEAD: Content-Encoding %q, %d body bytes", rec.Header().Get("Content-Encoding"), rec.Body.Len())
	}
	// The copy itself, asked for by name, is a plain file.
	rec = get(t, h, http.MethodGet, "/main.wasm.br", map[string]string{"Accept-Encoding": "br"})
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Encoding") != "" || !bytes.Equal(rec.Body.Bytes(), br) {
		t.Errorf("GET main.wasm.br: status %d, Content-Encoding %q", rec.Code, rec.Header().Get("Content-Encoding"))
	}
}

// A file with only a brotli copy: gzip-only clients get it as it is.
func TestHandlerBrotliOnly(t *testing.T) {
	dir, _ := newSite(t)
	if err := os.WriteFile(filepath.Join(dir, "loader.js.br"), []byte("br"), 0o644); err != nil {
		t.Fatal(err)
	}
	h := Handler(dir)
	rec := get(t, h, http.MethodGet, "/loader.js", map[string]string{"Accept-Encoding": "gzip"})
	if got := rec.Header().Get("Content-Encoding"); got != "" || rec.Body.String() != "console.log(1)" {
		t.Errorf("gzip-only client: Content-Encoding %q, body %q; want the file as it is", got, rec.Body.String())
	}
	if got := rec.Header().Get("Vary"); got != "Accept-Encoding" {
		t.Errorf("Vary %q, want Accept-Encoding", got)
	}
	rec = get(t, h, http.MethodGet, "/loader.js", map[string]string{"Accept-Encoding": "br"})
	if got := rec.Header().Get("Content-Type"); rec.Header().Get("Content-Encoding") != "br" || got != "text/javascript; charset=utf-8" {
		t.Errorf("br client: Content-Encoding %q, Content-Type %q", rec.Header().Get("Content-Encoding"), got)
	}
}
