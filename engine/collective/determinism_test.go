package collective

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

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
	golden.Check(t, "trace_hashes.golden", b.String())
}
