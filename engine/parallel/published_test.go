package parallel_test

import (
	"reflect"
	"testing"

	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/validate"
)

// The published checks in this package and gpuscope validate's rows
// evaluate the same configurations, so the two cannot drift apart.
func TestPublishedConfigsAreValidates(t *testing.T) {
	same := func(what string, a, b parallel.Config) {
		t.Helper()
		a.Model.ID, b.Model.ID = "", ""
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: the test's configuration\n%+v\nvalidate's\n%+v", what, a, b)
		}
	}
	for _, sp := range []bool{false, true} {
		for _, rc := range []parallel.Recompute{parallel.RecomputeFull, parallel.RecomputeSelective} {
			same("Korthikanti 22B", parallel.Korthikanti22BForTest(t, sp, rc), validate.Korthikanti22B(sp, rc))
		}
	}
	for _, r := range validate.NarayananRows {
		for _, b := range []int{1, 2, 4, 8} {
			for _, v := range []int{1, 2, 4} {
				same("Narayanan "+r.Params, parallel.NarayananForTest(t, r.A, r.H, r.L, r.TP, r.PP, r.GPUs, r.Batch, b, v), validate.Narayanan(r, b, v))
			}
		}
	}
	same("Llama 3 405B 8K on 16,384", parallel.Llama405ForTest(t), validate.Llama3(16384))
	same("Llama 3 405B 131K", parallel.Llama405LongForTest(t), validate.Llama3Long())
	for _, s := range []parallel.Schedule{parallel.OneFOneB, parallel.DualPipe} {
		same("DeepSeek-V3 "+string(s), parallel.DeepSeekV3ForTest(t, s), validate.DeepSeekV3(s))
	}
}
