package parallel

import "testing"

func TestZZDebug(t *testing.T) {
	m, p, cl := deepSeekV3AsRun(t)
	for _, s := range []Schedule{DualPipe, OneFOneB} {
		for _, v := range []struct {
			mods Modules
			fp8  bool
		}{{0, false}, {ModuleLayerNorm | ModuleMLAUpProj | ModuleMoEAct, false}, {ModuleLayerNorm | ModuleMLAUpProj | ModuleMoEAct, true}, {ModuleCoreAttn | ModuleLayerNorm | ModuleMLAUpProj | ModuleMoEAct, true}} {
			q := p
			q.Schedule, q.RecomputeModules, q.FP8Cache = s, v.mods, v.fp8
			r, err := Evaluate(Config{Model: m, Plan: q, Cluster: cl})
			if err != nil {
				t.Fatal(err)
			}
			mem := r.Memory
			t.Logf("%s %s fp8 %v: %.3gM tok/s (%+.1f%%) step %.2f; mem %.1f GB (act %.1f) of %.1f", s, v.mods, v.fp8, r.TokensPerS/1e6, 100*(r.TokensPerS/3.1605e6-1), r.Time.Step, mem.Total/1e9, mem.Activations/1e9, mem.Usable/1e9)
		}
	}
}
