// Package golden compares test output with files under testdata/, in the
// manner of etcd's raft interaction tests: go test -update rewrites them,
// and a mismatch is written beside the golden file under testdata/failed/
// so a reviewer can diff the two.
package golden

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// Updating says whether this run rewrites golden files (go test -update).
func Updating() bool { return *update }

// Check compares got with testdata/name (name may contain slashes).
func Check(t testing.TB, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) == got {
		return
	}
	failed := filepath.Join("testdata", "failed", filepath.FromSlash(name))
	_ = os.MkdirAll(filepath.Dir(failed), 0o755)
	_ = os.WriteFile(failed, []byte(got), 0o644)
	ws := bufio.NewScanner(strings.NewReader(string(want)))
	gs := bufio.NewScanner(strings.NewReader(got))
	for line := 1; ; line++ {
		w, g := ws.Scan(), gs.Scan()
		if !w && !g {
			break
		}
		if ws.Text() != gs.Text() {
			t.Errorf("%s line %d:\n got  %s\n want %s\n(the whole output is in %s)", path, line, gs.Text(), ws.Text(), failed)
			return
		}
	}
}
