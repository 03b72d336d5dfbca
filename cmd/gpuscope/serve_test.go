package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
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

	urlRE := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+/) `)
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); {
		if m := urlRE.FindStringSubmatch(stdout.String()); m != nil {
			url = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited early with status %d: %s", code, stderr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if url == "" {
		t.Fatalf("no URL printed; stdout %q", stdout.String())
	}

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
