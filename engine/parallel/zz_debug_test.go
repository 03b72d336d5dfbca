package parallel

import (
	"testing"
)

func TestZZDebug(t *testing.T) {
	c := llama405(t)
	for _, gpus := range []int{8192, 16384} {
		for _, v := range []int{1, 2, 4, 8} {
			for _, bpp := range []int{16, 18} {
				p := c.Plan
				p.TP, p.PP, p.DP, p.Interleave, p.ZeRO, p.Recompute, p.SP, p.MicroBatch, p.BytesPerParam = 8, 16, gpus/128, v, 2, RecomputeNone, true, 1, bpp
				p.Schedule = OneFOneB
				if v > 1 {
					p.Schedule = Interleaved
				}
				cl := c.Cluster
				cl = DefaultCluster(cl.GPU, gpus)
				r, err := Evaluate(Config{Model: c.Model, Plan: p, Cluster: cl})
				if err != nil {
					t.Log(err)
					continue
				}
				m := r.Memory
				tm := r.Time
				mf, _ := StepFLOPs(c.Model, p.GlobalBatch, RecomputeNone)
				t.Logf("%d v%d bpp%d: mem %.1f (over %.1f) step %.2f = comp %.2f bub %.2f tp %.2f pp %.2f dp %.2f-%.2f  model TFLOP/s %.0f", gpus, v, bpp, m.Total/1e9, m.Over/1e9, tm.Step, tm.Compute, tm.Bubble, tm.TPComm, tm.PPComm, tm.DPComm, tm.DPHidden, mf/tm.Step/float64(gpus)/1e12)
			}
		}
	}
}
