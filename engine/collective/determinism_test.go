package collective

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// The same configuration gives the same trace, byte for byte, natively and
// in WebAssembly: the hashes of these runs are recorded in
// testdata/trace_hashes.golden and this test runs under both GOARCHes
// (make test runs the engine tests with GOOS=js GOARCH=wasm under Node).
func TestTraceHashesAreStable(t *testing.T) {
	type run struct {
		algo  Algo
		n     int
		bytes int64
		link  string
	}
	runs := []run{
		{Ring, 8, 256 << 20, "nvlink4"},
		{Ring, 8, 1_000_003, "ib-ndr"},
		{Ring, 64, 1 << 30, "nvlink4"},
		{Ring, 37, 12345, "ib-ndr"},
		{Star, 8, 256 << 20, "nvlink4"},
		{Star, 64, 77_777_777, "ib-ndr"},
	}
	var b strings.Builder
	for _, r := range runs {
		cfg := Config{Op: AllReduce, Algo: r.algo, Ranks: r.n, Bytes: r.bytes, Link: link(t, r.link)}
		res, err := Run(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// Recording the trace must not change it.
		cfg.Record = true
		if rec, _ := Run(cfg); rec.Hash != res.Hash {
			t.Errorf("%v: hash %x recorded, %x not", r, uint64(rec.Hash), uint64(res.Hash))
		}
		fmt.Fprintf(&b, "%s n=%d bytes=%d link=%s time_ps=%d hash=%016x\n", r.algo, r.n, r.bytes, r.link, int64(res.Time), uint64(res.Hash))
	}
	golden(t, "trace_hashes.golden", b.String())
}

// golden compares got with testdata/name; with -update it rewrites the
// file. A mismatch is written to testdata/failed/name for review.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
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
	ws := bufio.NewScanner(strings.NewReader(string(want)))
	gs := bufio.NewScanner(strings.NewReader(got))
	for line := 1; ; line++ {
		w, g := ws.Scan(), gs.Scan()
		if !w && !g {
			break
		}
		if ws.Text() != gs.Text() {
			t.Errorf("%s line %d:\n got  %s\n want %s", path, line, gs.Text(), ws.Text())
		}
	}
	_ = os.MkdirAll(filepath.Join("testdata", "failed"), 0o755)
	_ = os.WriteFile(filepath.Join("testdata", "failed", name), []byte(got), 0o644)
}
