package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe to read while serve writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func siteDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{
		"index.html": "<!doctype html><title>gpuscope</title>",
		"main.wasm":  "\x00asm\x01\x00\x00\x00",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestServeBadFlags(t *testing.T) {
	dir := siteDir(t)
	tests := []struct {
		args []string
		want string // a substring of the one-line error
	}{
		{[]string{"--port", "80"}, "unknown flag --port (allowed: --addr HOST:PORT, --dir DIR)"},
		{[]string{"--addr"}, "--addr needs a value: HOST:PORT"},
		{[]string{"--dir"}, "--dir needs a value"},
		{[]string{"--addr", "8080", "--dir", dir}, `--addr "8080": want HOST:PORT`},
		{[]string{"--dir", filepath.Join(dir, "absent")}, "absent\": not a directory"},
		{[]string{"--dir", t.TempDir()}, "no index.html there"},
		{[]string{"--dir", dir, "extra"}, `unexpected argument "extra"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := serve(context.Background(), tt.args, &stdout, &stderr)
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			got := stderr.String()
			if !strings.HasPrefix(got, "gpuscope serve: ") || strings.Count(got, "\n") != 1 || !strings.HasSuffix(got, "\n") {
				t.Errorf("stderr %q, want one line starting with %q", got, "gpuscope serve: ")
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("stderr %q, want it to contain %q", got, tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q, want empty", stdout.String())
			}
		})
	}
}

func TestServeHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := serve(context.Background(), []string{"-h"}, &stdout, &stderr); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	if !strings.Contains(stdout.String(), "--addr HOST:PORT") {
		t.Errorf("help %q does not describe --addr", stdout.String())
	}
}

func TestServeServesSite(t *testing.T) {
	dir := siteDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() { done <- serve(ctx, []string{"--addr", "127.0.0.1:0", "--dir", dir}, &stdout, &stderr) }()
	url := "http://" + servedAddr(t, &stdout, &stderr, done) + "/"

	resp, err := http.Get(url + "main.wasm")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/wasm" {
		t.Errorf("GET main.wasm: %d %q, want 200 application/wasm", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if string(body) != "\x00asm\x01\x00\x00\x00" {
		t.Errorf("GET main.wasm: body %q", body)
	}

	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit status after stop %d, want 0; stderr %q", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
}

// servedAddr waits for serve's first line and returns the host:port it
// names.
func servedAddr(t *testing.T, stdout, stderr *syncBuffer, done <-chan int) string {
	t.Helper()
	urlRE := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)/ `)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if m := urlRE.FindStringSubmatch(stdout.String()); m != nil {
			return m[1]
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited early with status %d: %s", code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatalf("no URL printed; stdout %q", stdout.String())
	return ""
}

// startServe runs serveWith on a free port of 127.0.0.1 until the test
// ends and returns its host:port.
func startServe(t *testing.T, lim serveLimits) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- serveWith(ctx, lim, []string{"--addr", "127.0.0.1:0", "--dir", siteDir(t)}, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop after its context was cancelled")
		}
	})
	return servedAddr(t, &stdout, &stderr, done)
}

// keepAlive is a client connection that asks one request after another.
type keepAlive struct {
	net.Conn
	r *bufio.Reader
}

func dialKeepAlive(t *testing.T, addr string) *keepAlive {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &keepAlive{c, bufio.NewReader(c)}
}

// get asks for path on the connection, keeping it open, and returns the
// status; the answer must come within 10 s.
func (k *keepAlive) get(path string) (int, error) {
	if err := k.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return 0, err
	}
	if _, err := fmt.Fprintf(k, "GET %s HTTP/1.1\r\nHost: gpuscope.test\r\n\r\n", path); err != nil {
		return 0, err
	}
	resp, err := http.ReadResponse(k.r, nil)
	if err != nil {
		return 0, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, err
}

// A keep-alive connection that asks nothing more is closed after the
// idle limit.
func TestServeClosesIdleConnections(t *testing.T) {
	lim := defaultServeLimits()
	lim.idle = 200 * time.Millisecond
	k := dialKeepAlive(t, startServe(t, lim))
	if code, err := k.get("/"); code != http.StatusOK || err != nil {
		t.Fatalf("GET /: %d, %v", code, err)
	}
	start := time.Now()
	if err := k.SetReadDeadline(start.Add(5 * time.Second)); err != nil {
		t.Fatal(err)
	}
	_, err := k.r.ReadByte()
	if errors.Is(err, os.ErrDeadlineExceeded) || err == nil {
		t.Fatalf("an idle connection is still open after %v (idle limit %v): %v", time.Since(start).Round(time.Millisecond), lim.idle, err)
	}
	if d := time.Since(start); d < lim.idle/2 {
		t.Errorf("closed after %v, before the idle limit %v", d, lim.idle)
	}
}

// Headers past the limit are refused (431), not read on and on.
func TestServeRefusesHugeHeaders(t *testing.T) {
	lim := defaultServeLimits()
	k := dialKeepAlive(t, startServe(t, lim))
	if err := k.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 2*lim.maxHeaderBytes)
	if _, err := fmt.Fprintf(k, "GET / HTTP/1.1\r\nHost: gpuscope.test\r\nX-Big: %s\r\n\r\n", big); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(k.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a %d-byte header: %d, want 431", len(big), resp.StatusCode)
	}
}

// Many idle keep-alive clients take no more than the server's connections
// (the ones idle longest are closed for newcomers), and a normal request
// is still answered.
func TestServeHoldsManyIdleConnections(t *testing.T) {
	lim := defaultServeLimits()
	lim.maxConns = 16
	addr := startServe(t, lim)
	const clients = 300
	var idle []*keepAlive
	for i := range clients {
		k := dialKeepAlive(t, addr)
		if code, err := k.get("/"); code != http.StatusOK || err != nil {
			t.Fatalf("client %d: GET /: %d, %v", i, code, err)
		}
		idle = append(idle, k)
	}
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + "/main.wasm")
	if err != nil {
		t.Fatalf("a normal request after %d idle clients: %v", clients, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a normal request after %d idle clients: %d, want 200", clients, resp.StatusCode)
	}
	// The connections the server still holds: the others read EOF at
	// once (each gets its own deadline: one past is reported before any
	// EOF waiting).
	open := 0
	for _, k := range idle {
		k.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := k.r.ReadByte(); errors.Is(err, os.ErrDeadlineExceeded) {
			open++
		}
	}
	if open > lim.maxConns {
		t.Errorf("%d of %d idle clients still connected, want at most %d", open, clients, lim.maxConns)
	}
}

// The finding, on a small scale: gpuscope serve as its own
// process, allowed 128 open files, and 300 idle keep-alive clients; a
// normal request still gets its 200 (it hung, or got a 500, once the
// idle clients had taken every file).
func TestServeIdleClientsCannotExhaustFiles(t *testing.T) {
	if !canLimitOpenFiles {
		t.Skip("no open-file limit to lower here")
	}
	enc, _ := json.Marshal([]string{"serve", "--addr", "127.0.0.1:0", "--dir", siteDir(t)})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), trialArgsEnv+"="+string(enc), trialFilesEnv+"=128")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	m := regexp.MustCompile(`on http://(127\.0\.0\.1:\d+)/ `).FindStringSubmatch(line)
	if err != nil || m == nil {
		t.Fatalf("serve printed %q (%v); stderr %q", line, err, stderr.String())
	}
	addr := m[1]
	const clients = 300
	for i := range clients {
		if code, err := dialKeepAlive(t, addr).get("/"); code != http.StatusOK || err != nil {
			t.Fatalf("idle client %d: GET /: %d, %v; stderr %.500s", i, code, err, stderr.String())
		}
	}
	if code, err := dialKeepAlive(t, addr).get("/main.wasm"); code != http.StatusOK || err != nil {
		t.Fatalf("a normal request after %d idle clients: %d, %v; stderr %.500s", clients, code, err, stderr.String())
	}
}
