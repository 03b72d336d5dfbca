package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/site/server"
)

// serveUsage is gpuscope serve --help, its limits written from the same
// values the server runs with.
func serveUsage() string {
	return fmt.Sprintf(`usage: gpuscope serve [--addr HOST:PORT] [--dir DIR]

Serves the built site (make build writes it to site/dist) over HTTP.

  --addr HOST:PORT  address to listen on (default localhost:8080; port 0 picks a free one)
  --dir DIR         directory holding index.html and main.wasm (default site/dist)

Limits, so that idle or stalled clients cannot use up the server's open files:
%s
`, wrap(defaultServeLimits().describe(), "  ", 80))
}

// serveFlag describes each flag for error messages: what a value looks like.
var serveFlags = map[string]string{
	"addr": "HOST:PORT, e.g. localhost:8080",
	"dir":  "a directory holding index.html, e.g. site/dist",
}

// runServe runs `gpuscope serve` until SIGINT or SIGTERM. It returns the
// process exit status: 0 after a clean stop, 1 when the server fails, 2 for
// bad flags.
func runServe(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serve(ctx, args, stdout, stderr)
}

// serveLimits are what the server allows a client: how long a request
// may take to arrive and its answer to leave, how long a keep-alive
// connection may wait for its next request, how large the headers may be,
// and how many connections it holds at once.
type serveLimits struct {
	readHeader, read, write, idle time.Duration
	maxHeaderBytes                int
	maxConns                      int
}

// filesPerConn are the open files a connection holds while its request is
// served: the socket, the site's root and the file. filesKept are left to
// the rest of the process (standard streams, the listener, the poller).
const (
	filesPerConn = 3
	filesKept    = 32
	maxConns     = 1024
)

// defaultServeLimits are gpuscope serve's. The write limit is generous: it
// covers the whole answer, and the 13.3 MB main.wasm, sent as it is to a
// client that takes no compressed copy, needs 10 minutes at 180 kbit/s; a
// stalled reader holds only one of the connections meanwhile.
func defaultServeLimits() serveLimits {
	return serveLimits{
		readHeader:     10 * time.Second,
		read:           30 * time.Second,
		write:          10 * time.Minute,
		idle:           time.Minute,
		maxHeaderBytes: 64 << 10,
		maxConns:       connsForFiles(openFileLimit()),
	}
}

// connsForFiles is how many connections a process allowed files open
// files may hold (0: the limit is unknown), at most maxConns.
func connsForFiles(files int) int {
	if files <= 0 {
		return maxConns
	}
	return max(1, min(maxConns, (files-filesKept)/filesPerConn))
}

// describe is the limits in words, for --help.
func (l serveLimits) describe() string {
	return fmt.Sprintf("a request's headers must arrive within %s and the whole request within %s; "+
		"an answer must be sent within %s (enough for the 13 MB main.wasm at 180 kbit/s); "+
		"a keep-alive connection is closed after %s without a request; headers are at most %s; "+
		"at most %s connections at once (%s, or a third of the process's open-file limit where that is less) — "+
		"when all are taken, a new client gets the slot of the connection idle longest, or waits for one to end.",
		units.Duration(l.readHeader.Seconds()), units.Duration(l.read.Seconds()), units.Duration(l.write.Seconds()),
		units.Duration(l.idle.Seconds()), units.BytesIEC(float64(l.maxHeaderBytes)),
		units.Count(int64(l.maxConns)), units.Count(maxConns))
}

// serve is runServe with the stop signal as a context, for tests.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return serveWith(ctx, defaultServeLimits(), args, stdout, stderr)
}

// serveWith is serve under the given limits (tests shorten them).
func serveWith(ctx context.Context, lim serveLimits, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "localhost:8080", "")
	dir := fs.String("dir", "site/dist", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, serveUsage())
			return 0
		}
		fmt.Fprintf(stderr, "gpuscope serve: %s\n", flagError(err))
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "gpuscope serve: unexpected argument %q (allowed flags: --addr HOST:PORT, --dir DIR)\n", fs.Arg(0))
		return 2
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		fmt.Fprintf(stderr, "gpuscope serve: --addr %q: want %s\n", *addr, serveFlags["addr"])
		return 2
	}
	if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "gpuscope serve: --dir %q: not a directory (want %s; run make build first)\n", *dir, serveFlags["dir"])
		return 2
	}
	if _, err := os.Stat(filepath.Join(*dir, "index.html")); err != nil {
		fmt.Fprintf(stderr, "gpuscope serve: --dir %q: no index.html there (want %s; run make build first)\n", *dir, serveFlags["dir"])
		return 2
	}

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "gpuscope serve: %v\n", err)
		return 1
	}
	cl := limitConns(ln, lim.maxConns)
	srv := &http.Server{
		Handler:           server.Handler(*dir),
		ReadHeaderTimeout: lim.readHeader,
		ReadTimeout:       lim.read,
		WriteTimeout:      lim.write,
		IdleTimeout:       lim.idle,
		MaxHeaderBytes:    lim.maxHeaderBytes,
		ConnState:         cl.track,
	}
	fmt.Fprintf(stdout, "gpuscope: serving %s on %s (Ctrl-C to stop)\n", *dir, siteURL(ln.Addr()))

	done := make(chan error, 1)
	go func() { done <- srv.Serve(cl) }()
	select {
	case err := <-done:
		fmt.Fprintf(stderr, "gpuscope serve: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		fmt.Fprintf(stderr, "gpuscope serve: shutdown: %v\n", err)
		return 1
	}
	return 0
}

// flagError rewrites the flag package's messages into one line that names
// the flag and says what it accepts.
func flagError(err error) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return fmt.Sprintf("unknown flag --%s (allowed: --addr HOST:PORT, --dir DIR)", strings.TrimLeft(name, "-"))
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		if want, known := serveFlags[name]; known {
			return fmt.Sprintf("--%s needs a value: %s", name, want)
		}
	}
	return msg
}

// siteURL is the address to open in a browser for a listener's address:
// wildcard hosts become localhost.
func siteURL(a net.Addr) string {
	host, port, err := net.SplitHostPort(a.String())
	if err != nil {
		return "http://" + a.String() + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port) + "/"
}
