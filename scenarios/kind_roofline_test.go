package scenarios

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
)

// A Blackwell picked in the roofline lesson's last step joins the three
// GPUs drawn side by side: its roof is the step's, its ridge peak ÷
// bandwidth (a B200 in BF16: 2.25 PFLOP/s ÷ 8 TB/s = 281.25 FLOP/byte),
// and the table and the numbers have it after the three.
func TestRooflineBlackwell(t *testing.T) {
	s, _ := Get("roofline")
	cfg := s.Defaults()
	cfg["gpu"] = "b200"
	les, err := Prepare(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	n := len(les.Steps)
	run := les.Steps[n-1].Run.(*RooflineRun)
	if got := strings.Join(run.IDs, ","); got != "a100-80gb,h100,h200,b200" {
		t.Errorf("GPUs compared: %s, want the three then b200", got)
	}
	m := les.Metrics(n).(RooflineMetrics)
	if m.GPU != "b200" || math.Abs(m.RidgeFLOPPerByte-2.25e15/8e12) > 1e-9 || math.Abs(m.RidgeFLOPPerByte-281.25) > 1e-9 || len(m.GPUs) != 4 {
		t.Errorf("B200 BF16: GPU %s, ridge %g, %d GPUs; want b200, 281.25, 4", m.GPU, m.RidgeFLOPPerByte, len(m.GPUs))
	}
	tb := les.Table(n, "en")
	if tb.Current != "b200" || len(tb.ColumnKeys) != 4 || tb.ColumnKeys[3] != "b200" || tb.Columns[4] != "B200" {
		t.Errorf("table columns %v (%v), current %s", tb.Columns, tb.ColumnKeys, tb.Current)
	}
	// The steps that set an H100 or an H200 keep the three.
	if ids := les.Steps[0].Run.(*RooflineRun).IDs; len(ids) != 3 {
		t.Errorf("step 1 compares %v, want the three", ids)
	}
	// Every dtype the knob offers has a roof on both Blackwells, from
	// the catalogue's peak; the narration quotes the B200's numbers.
	for _, id := range []string{"b200", "gb200"} {
		g := hw.MustGPU(id)
		k, _ := s.Knob("dtype")
		for _, d := range k.Values {
			cfg := s.Defaults()
			cfg["gpu"], cfg["dtype"] = id, d
			les, err := Prepare(s, cfg)
			if err != nil {
				t.Errorf("%s %s: %v", id, d, err)
				continue
			}
			roof := les.Steps[n-1].Run.(*RooflineRun).Current()
			if peak, _ := g.PeakFLOPS(hw.Dtype(d)); roof.Peak != peak || roof.Peak <= 0 || roof.Ridge() != peak/g.HBMBandwidth {
				t.Errorf("%s %s: peak %g ridge %g, want %g and %g", id, d, roof.Peak, roof.Ridge(), peak, peak/g.HBMBandwidth)
			}
		}
	}
	args := strings.Join(les.StepNarrationArgs(n, "en"), " ")
	for _, want := range []string{"ridge_b200 281 ", "peak_b200 2,250 ", "bw_b200 8 "} {
		if !strings.Contains(args+" ", want) {
			t.Errorf("narration %q lacks %q", args, want)
		}
	}
}

// A dtype the GPU has no unit for is refused on the dtype field, with
// what that GPU allows — never a roof of zero.
func TestRooflineRefusesMissingDtype(t *testing.T) {
	s, _ := Get("roofline")
	for _, c := range []struct{ gpu, dtype, allowed string }{
		{"a100-80gb", "fp8", "fp32, tf32, fp16, bf16"},
		{"h100", "fp4", "fp32, tf32, fp16, bf16, fp8"},
	} {
		cfg := s.Defaults()
		cfg["gpu"], cfg["dtype"] = c.gpu, c.dtype
		_, err := Prepare(s, cfg)
		if err == nil || !strings.HasPrefix(err.Error(), "dtype: ") || !strings.HasSuffix(err.Error(), "; allowed "+c.allowed) {
			t.Errorf("%s %s: %v, want the refusal naming dtype and allowing %s", c.gpu, c.dtype, err, c.allowed)
		}
		ie := engineError("dtype", c.dtype, err)
		if ie.Key != "error.engine.dtype_allowed" || !strings.Contains(ie.Localize("en"), c.allowed) || !strings.Contains(ie.Localize("zh"), c.allowed) {
			t.Errorf("%s %s: worded %s: %q / %q", c.gpu, c.dtype, ie.Key, ie.Localize("en"), ie.Localize("zh"))
		}
	}
}
