package parallel_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
)

// GPT-3 175B on 512 H100s as TP 8 × PP 8 × DP 8: the memory of the
// busiest GPU and the step's time.
func ExampleEvaluate() {
	m, _ := model.Preset("gpt3-175b")
	g, _ := hw.GPUByID("h100")
	p := parallel.DefaultPlan(512)
	p.TP, p.PP, p.DP = 8, 8, 8
	p.SP, p.Recompute, p.MicroBatch, p.GlobalBatch = true, parallel.RecomputeSelective, 1, 512
	r, err := parallel.Evaluate(parallel.Config{Model: m, Plan: p, Cluster: parallel.DefaultCluster(g, 512)})
	if err != nil {
		panic(err)
	}
	fmt.Println(units.Number(r.Params/1e9)+"B parameters,", units.Bytes(r.Memory.Total), "of", units.Bytes(r.Memory.Usable), "on the busiest GPU")
	fmt.Println("step", units.Duration(r.Time.Step), "· bubble", units.Percent(r.BubbleFraction), "· MFU", units.Percent(r.MFU))
	// Output:
	// 175B parameters, 55.5 GB of 79.2 GB on the busiest GPU
	// step 5.1 s · bubble 10.9% · MFU 43.7%
}

// The pipeline bubble of 1F1B with p = 4 stages and m = 8 micro-batches
// is (p − 1)/m of the ideal time.
func ExampleBuildTimeline() {
	f, b := []float64{1, 1, 1, 1}, []float64{2, 2, 2, 2}
	tl, err := parallel.BuildTimeline(parallel.OneFOneB, 4, 8, 1, f, b, 0)
	if err != nil {
		panic(err)
	}
	ideal := 8 * 3.0
	fmt.Println("length", tl.Length, "· bubble", (tl.Length-ideal)/ideal)
	// Output:
	// length 33 · bubble 0.375
}
