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

	"github.com/gpuscope/gpuscope/site/server"
)

const serveUsage = `usage: gpuscope serve [--addr HOST:PORT] [--dir DIR]

Serves the built site (make build writes it to site/dist) over HTTP.

  --addr HOST:PORT  address to listen on (default localhost:8080; port 0 picks a free one)
  --dir DIR         directory holding index.html and main.wasm (default site/dist)
`

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

// serve is runServe with the stop signal as a context, for tests.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addr := fs.String("addr", "localhost:8080", "")
	dir := fs.String("dir", "site/dist", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, serveUsage)
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
	srv := &http.Server{
		Handler:           server.Handler(*dir),
		ReadHeaderTimeout: 10 * time.Second,
	}
	fmt.Fprintf(stdout, "gpuscope: serving %s on %s (Ctrl-C to stop)\n", *dir, siteURL(ln.Addr()))

	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
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
