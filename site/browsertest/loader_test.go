package browsertest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpuscope/gpuscope/site/server"
)

// dropHeader is an http.ResponseWriter that removes one header before the
// response goes out.
type dropHeader struct {
	http.ResponseWriter
	name string
}

func (d dropHeader) WriteHeader(code int) {
	d.Header().Del(d.name)
	d.ResponseWriter.WriteHeader(code)
}

func (d dropHeader) Write(b []byte) (int, error) {
	d.Header().Del(d.name)
	return d.ResponseWriter.Write(b)
}

// The loading line counts the bytes that travel (issue 17: "Loading…
// 14.3 of 14.3 MB" while 3.5 MB of gzip came over the wire). main.wasm is
// served four ways: by gpuscope's server (brotli, to Chromium, and the decompressed size,
// no Content-Length, as Go's ServeContent omits it for an encoded body: a
// percentage), by a host that sends the compressed Content-Length too (a
// percentage of it), as it is (its own size, in MB), and compressed with
// only its Content-Length, as nginx's gzip_static does (the compressed
// size alone). A compressed download never counts decompressed bytes,
// which would overstate the transfer fourfold.
func TestLoaderCountsTransfer(t *testing.T) {
	sideBySide(t)
	if browserCtx == nil {
		t.Skip("browser tests need GPUSCOPE_SITE_DIR (make test sets it to site/dist)")
	}
	size := func(name string) int64 {
		fi, err := os.Stat(filepath.Join(siteDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	raw, gz := size("main.wasm"), size("main.wasm.gz")
	mb := func(n int64) string { return fmt.Sprintf("%.1f", float64(n)/1e6) }
	site := server.Handler(siteDir)
	// withLength is a host that serves gzip only (the .gz copy, not the
	// .br one gpuscope serve prefers) and sends its Content-Length.
	withLength := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
				r.Header.Set("Accept-Encoding", "gzip")
				if r.URL.Path == "/main.wasm" {
					w.Header().Set("Content-Length", strconv.FormatInt(gz, 10))
				}
			}
			h.ServeHTTP(w, r)
		})
	}
	tests := []struct {
		name     string
		handler  http.Handler
		encoding string
		transfer int64 // gpuscopeLoader.transfer
		total    int64 // gpuscopeLoader.total
		shows    *regexp.Regexp
	}{
		{"gpuscope serve", site, "br", 0, raw, regexp.MustCompile(`^Loading gpuscope… \d{1,3}%$`)},
		{"gzip with both sizes", withLength(site), "gzip", gz, raw,
			regexp.MustCompile(`^Loading gpuscope… \d{1,3}% of ` + regexp.QuoteMeta(mb(gz)) + ` MB$`)},
		{"as it is", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			r.Header.Del("Accept-Encoding")
			site.ServeHTTP(w, r)
		}), "identity", raw, raw,
			regexp.MustCompile(`^Loading gpuscope… \d+\.\d of ` + regexp.QuoteMeta(mb(raw)) + ` MB$`)},
		{"gzip and its length alone", withLength(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			site.ServeHTTP(dropHeader{w, server.UncompressedLengthHeader}, r)
		})), "gzip", gz, 0,
			regexp.MustCompile(`^Loading gpuscope… \(` + regexp.QuoteMeta(mb(gz)) + ` MB compressed\)$`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(tt.handler)
			defer srv.Close()
			ctx := openBlank(t) // its tab records #loader-text on every page it opens
			navigate(t, ctx, srv.URL+"/index.html")
			waitJS(t, ctx, `window.gpuscopeLoader && ["starting", "running"].includes(window.gpuscopeLoader.phase)`, 60*time.Second, "main.wasm downloaded")
			var texts []string
			evalJSON(ctx, "window.__loaderTexts", &texts)
			var st struct {
				Loaded, Total, Transfer int64
				Encoding                string
			}
			evalJSON(ctx, `(({loaded, total, transfer, encoding}) => ({Loaded: loaded, Total: total, Transfer: transfer, Encoding: encoding}))(window.gpuscopeLoader)`, &st)
			if st.Encoding != tt.encoding || st.Transfer != tt.transfer || st.Total != tt.total || st.Loaded != raw {
				t.Errorf("gpuscopeLoader = %+v; want encoding %s, transfer %d, total %d, loaded %d", st, tt.encoding, tt.transfer, tt.total, raw)
			}
			progress := slices.DeleteFunc(slices.Clone(texts), func(s string) bool { return !strings.HasPrefix(s, "Loading gpuscope… ") })
			if len(progress) == 0 {
				t.Fatalf("#loader-text showed no progress: %q", texts)
			}
			for _, s := range progress {
				if !tt.shows.MatchString(s) {
					t.Errorf("#loader-text showed %q; want it to match %s", s, tt.shows)
				}
			}
			// A compressed download never claims the decompressed size.
			if tt.encoding != "identity" && slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, mb(raw)) }) {
				t.Errorf("#loader-text showed the decompressed %s MB of a %s MB transfer: %q", mb(raw), mb(gz), texts)
			}
			t.Logf("%s: %q", tt.name, progress)
		})
	}
}
