package validate

import (
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/engine/parallel"
)

// The GPU-hours rows are the runs' plans' steps made into whole runs by
// hand: GPUs × ⌈tokens ÷ tokens a step⌉ × step ÷ goodput ÷ 3,600, the
// goodput faults' expectation at Daly's interval for the cluster's MTBF
// (Llama 3's per-GPU rate ÷ GPUs, a minute's checkpoint, ten minutes a
// restart); each is stated as it stands: Llama 3's open (the failures
// assumed), DeepSeek-V3's open (its steady rate's row is), BLOOM's held.
func TestTrainingRunRows(t *testing.T) {
	rows, err := Rows()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Row{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	_, bloomResult, err := bloom().run.best()
	if err != nil {
		t.Fatal(err)
	}
	llama, _ := evaluate(Llama3(16384))
	ds, _ := evaluate(DeepSeekV3(parallel.DualPipe))
	for _, tt := range []struct {
		name      string
		r         parallel.Result
		tokens    float64
		gpus      int
		perStep   float64
		published float64
		status    Status
	}{
		{"llama3-405b-gpu-hours", llama, 15.6e12, 16384, 2048 * 8192, 30.84e6, Open},
		{"deepseek-v3-gpu-hours", ds, 14.8e12, 2048, 15360 * 4096, 2.664e6, Open},
		{"bloom-176b-gpu-hours", bloomResult, 366e9, 384, 2048 * 2048, 1082990, Held},
	} {
		row, ok := byName[tt.name]
		if !ok {
			t.Fatalf("no row %s", tt.name)
		}
		m := faults.Llama3MTBFGPUHours * 3600 / float64(tt.gpus)
		goodput := faults.ExpectedGoodput(faults.DalyInterval(60, m), 60, 600, m)
		want := float64(tt.gpus) * math.Ceil(tt.tokens/tt.perStep) * tt.r.Time.Step / goodput / 3600
		if math.Abs(row.Engine-want) > 1e-9*want || row.Published != tt.published || row.Tolerance != RunGPUHoursTolerance {
			t.Errorf("%s: engine %.6g GPU-hours, want %.6g by hand; published %g", tt.name, row.Engine, want, row.Published)
		}
		if row.Status != tt.status || row.PlanField != "time_to_train.gpu_hours" || !strings.Contains(row.Config, "--tokens ") {
			t.Errorf("%s: %s, plan field %q, config %s", tt.name, row.Status, row.PlanField, row.Config)
		}
		if !strings.Contains(row.Note, "without failures") || !strings.Contains(row.Note, "goodput") {
			t.Errorf("%s: the note does not give the run without failures: %s", tt.name, row.Note)
		}
	}
	if n := byName["bloom-176b-gpu-hours"].Note; !strings.Contains(n, "433 MWh") || !strings.Contains(n, "400 W TDP") {
		t.Errorf("BLOOM's row does not set the engine's energy beside Luccioni et al.'s: %s", n)
	}
}
