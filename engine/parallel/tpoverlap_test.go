package parallel

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// tpOverlapped by hand, TP 8 on 132 SMs (16 taken: the products 132/116
// as long meanwhile), one collective c = 1 ms:
//   - products of 4 ms each: the rings hide all of c (c < g·7/8); each
//     pipeline exposes its last split, c/4 = 0.25 ms, and its product's
//     slowdown, 4·(132/116 − 1) = 0.5517 ms; each bulk the slowdown alone;
//   - products of 0.5 ms: a ring exposes c − 0.5·7/8 = 0.5625 ms; a
//     pipeline 0.5·132/116/4 + 3·0.25 + 0.25 − 0.5 = 0.6422 ms; a bulk
//     c − g = 0.5 ms.
func TestTPOverlappedByHand(t *testing.T) {
	const c = 1e-3
	slow := 132.0 / 116
	all := func(g float64) [4]float64 { return [4]float64{g, g, g, g} }
	fwd, bwd := tpOverlapped(c, 8, 132, all(4e-3), all(4e-3), all(4e-3))
	if want := 2 * (0.25e-3 + 4e-3*(slow-1)); math.Abs(fwd-want) > 1e-15 {
		t.Errorf("long products, forward: %g s exposed, want %g", fwd, want)
	}
	if want := 2 * 4e-3 * (slow - 1); math.Abs(bwd-want) > 1e-15 {
		t.Errorf("long products, backward: %g s exposed, want %g", bwd, want)
	}
	fwd, bwd = tpOverlapped(c, 8, 132, all(0.5e-3), all(0.5e-3), all(0.5e-3))
	ring, pipe, bulk := c-0.5e-3*7/8, 0.5e-3*slow/4+3*0.25e-3+0.25e-3-0.5e-3, c-0.5e-3
	if math.Abs(fwd-2*(ring+pipe)) > 1e-15 || math.Abs(bwd-2*(ring+bulk)) > 1e-15 {
		t.Errorf("short products: %g, %g s exposed, want %g, %g", fwd, bwd, 2*(ring+pipe), 2*(ring+bulk))
	}
	// Never more than the four collectives without the overlap, less
	// their products' slowdown.
	if !(fwd < 4*c && bwd < 4*c) {
		t.Errorf("short products: %g, %g s exposed, more than the 4 ms without overlap", fwd, bwd)
	}
}

// In a plan: the overlap lowers the TP time a step exposes and nothing
// else; it is refused without sequence parallelism or TP.
func TestTPOverlapInAPlan(t *testing.T) {
	m := gpt(96, 12288, 96)
	cl := DefaultCluster(gpu(t, "h100"), 128)
	p := Plan{TP: 8, PP: 8, DP: 2, Interleave: 1, SP: true, Recompute: RecomputeSelective, Flash: true, MicroBatch: 1, GlobalBatch: 64,
		Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Overlap: true}
	off, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	p.TPOverlap = true
	on, err := Evaluate(Config{Model: m, Plan: p, Cluster: cl})
	if err != nil {
		t.Fatal(err)
	}
	if !(on.Time.TPComm < 0.5*off.Time.TPComm) || on.Time.Compute != off.Time.Compute || on.Memory != off.Memory {
		t.Errorf("TP exposed %g s with the overlap, %g without (want under half); compute %g, %g (want equal)", on.Time.TPComm, off.Time.TPComm, on.Time.Compute, off.Time.Compute)
	}
	for _, q := range []Plan{{TP: 8, SP: false}, {TP: 1, SP: true}} {
		bad := p
		bad.TP, bad.SP, bad.DP = q.TP, q.SP, 128/(q.TP*p.PP)
		if _, err := Evaluate(Config{Model: m, Plan: bad, Cluster: cl}); err == nil || !strings.Contains(err.Error(), "tp-overlap") {
			t.Errorf("tp %d sp %v: %v, want tp-overlap refused", q.TP, q.SP, err)
		}
	}
}
