package faults_test

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/faults"
	"github.com/gpuscope/gpuscope/engine/units"
)

// Llama 3's 54 days on 16,384 GPUs: a failure every few hours, and the
// checkpoint interval Young's rule gives for a one-minute checkpoint.
func ExampleRun() {
	c := faults.Config{GPUs: 16384, MTBFGPUHours: 50680, CheckpointEvery: 1800, CheckpointCost: 60, RestartCost: 600, Days: 54, Seed: 1}
	r, err := faults.Run(c)
	if err != nil {
		panic(err)
	}
	m := r.Metrics()
	fmt.Println("a failure every", units.Duration(c.ClusterMTBF()), "·", m.Failures, "failures")
	fmt.Println("goodput", units.Percent(m.Goodput))
	fmt.Println("Young", units.Duration(faults.YoungInterval(60, c.ClusterMTBF())))
	// Output:
	// a failure every 3.09 h · 435 failures
	// goodput 84%
	// Young 19.3 min
}
