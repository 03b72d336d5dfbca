package browsertest

import (
	"net/http"
	"strings"
	"sync"
)

// traffic counts what the site's test server sends, per path: requests,
// full (200) responses and body bytes, so a test can tell what a page
// fetched and how much it transferred.
var traffic = &trafficLog{}

type trafficLog struct {
	mu   sync.Mutex
	hits []hit
}

type hit struct {
	path   string
	status int
	bytes  int64
}

func (l *trafficLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(cw, r)
		l.mu.Lock()
		l.hits = append(l.hits, hit{r.URL.Path, cw.status, cw.bytes})
		l.mu.Unlock()
	})
}

// reset forgets what was served so far.
func (l *trafficLog) reset() {
	l.mu.Lock()
	l.hits = nil
	l.mu.Unlock()
}

// count is the number of requests for paths with the prefix, and of those
// answered 200 with a body.
func (l *trafficLog) count(prefix string) (requests, full int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.hits {
		if strings.HasPrefix(h.path, prefix) {
			requests++
			if h.status == http.StatusOK {
				full++
			}
		}
	}
	return
}

// bytes is the body bytes sent since the last reset, and the paths.
func (l *trafficLog) bytes() (n int64, paths []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.hits {
		n += h.bytes
		paths = append(paths, h.path)
	}
	return
}

// bytesFor is the body bytes sent for exactly path since the last reset.
func (l *trafficLog) bytesFor(path string) (n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.hits {
		if h.path == path {
			n += h.bytes
		}
	}
	return n
}

type countingWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *countingWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (w *countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}
