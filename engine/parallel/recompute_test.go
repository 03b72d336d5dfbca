package parallel

import (
	"testing"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/model"
)

// Selective recomputation's modules, by hand on one Llama 3 405B layer
// (TP 8, SP, FlashAttention, no dropout; s·b·h = 8192 × 16384): the
// norms' outputs 2 × 2·sbh ÷ t, the SwiGLU's output (the down
// projection's input) 2·s·b·f ÷ t, and with FP8 caching every product's
// input at 1 + 4/128 bytes, SwiGLU's gate and up outputs too, and the
// attention output at 1.5 (E5M6).
func TestRecomputeModulesByHand(t *testing.T) {
	m, _ := model.Preset("llama3-405b")
	s, h, f, T := 8192.0, 16384.0, 53248.0, 8.0
	sbh := s * h
	base := Plan{TP: 8, SP: true, Flash: true, Recompute: RecomputeSelective}
	at := func(p Plan) float64 { return layerActivations(m, 8192, 8192, 1, p) }
	core := at(base)
	for _, c := range []struct {
		mods  Modules
		saved float64
	}{
		{ModuleCoreAttn | ModuleLayerNorm, 2 * 2 * sbh / T},
		{ModuleCoreAttn | ModuleMoEAct, 2 * s * f / T},
		{ModuleCoreAttn | ModuleLayerNorm | ModuleMoEAct, 2*2*sbh/T + 2*s*f/T},
	} {
		p := base
		p.RecomputeModules = c.mods
		if got := core - at(p); !within(got, c.saved, 1e-12) {
			t.Errorf("%s: saves %.6g bytes, by hand %.6g", c.mods, got, c.saved)
		}
	}
	// Without the attention core in the list its softmax statistics are
	// kept: 4·a·s bytes ÷ t.
	p := base
	p.RecomputeModules = ModuleLayerNorm
	if got, want := at(p)-(core-2*2*sbh/T), 4*128*s/T; !within(got, want, 1e-12) {
		t.Errorf("layernorm alone keeps %.6g bytes of softmax statistics, by hand %.6g", got, want)
	}
	// FP8 caching: the products' inputs — the norms' outputs (2 × sbh ÷
	// t), the gate and up outputs (2f), the down projection's input (f)
	// — at 1 + 4/128 bytes, and the attention output O (h wide) at 1.5.
	p = base
	p.FP8Cache, p.BlockScaled = true, true
	tile := 1 + 4.0/128
	want := 2*(2-tile)*sbh/T + (2*f+f)*s*(2-tile)/T + 0.5*h*s/T
	if got := core - at(p); !within(got, want, 1e-12) {
		t.Errorf("FP8 cache saves %.6g bytes, by hand %.6g", got, want)
	}
}

// DeepSeek-V3's latent attention: recomputing the up projections keeps
// neither Q, K (128 heads × 192) nor V (128 × 128), 2·(192 + 192 + 128)
// · 128 bytes a token; their time is the two up projections again.
func TestRecomputeMLAUpProj(t *testing.T) {
	m, p, cl := deepSeekV3(t)
	p.Recompute, p.RecomputeModules = RecomputeSelective, ModuleCoreAttn
	at := func(q Plan) float64 { return layerActivations(m, 4096, 4096, 1, q) }
	q := p
	q.RecomputeModules |= ModuleMLAUpProj
	if got, want := at(p)-at(q), 4096*2*(192+192+128)*128.0; !within(got, want, 1e-12) {
		t.Errorf("mla_up_proj saves %.6g bytes a layer, by hand %.6g", got, want)
	}
	sc := cl
	sc.GPU = sustained(cl.GPU)
	c0, c1 := layerCost(m, p, sc), layerCost(m, q, sc)
	up := sc.gemm(p.matmul(), 4096, 128*256, 512) + sc.gemm(p.matmul(), 4096, 128*192, 1536)
	if got := c1.recompute - c0.recompute; !within(got, up, 1e-12) {
		t.Errorf("mla_up_proj recomputes %.6g s, by hand %.6g s", got, up)
	}
}

func TestRecomputeModulesRefused(t *testing.T) {
	llama, _ := model.Preset("llama3-405b")
	ds, pds, clds := deepSeekV3(t)
	h100 := DefaultCluster(gpu(t, "h100"), 8)
	lp := Plan{TP: 8, PP: 1, DP: 1, Interleave: 1, MicroBatch: 1, GlobalBatch: 1, Schedule: OneFOneB, BytesPerParam: 16, Dtype: hw.BF16, Recompute: RecomputeSelective, Flash: true}
	for _, c := range []struct {
		m    model.Transformer
		p    func() Plan
		cl   Cluster
		want string
	}{
		{llama, func() Plan { q := lp; q.RecomputeModules = ModuleMLAUpProj; return q }, h100, "recompute-modules: mla_up_proj needs latent attention (a model with kv_lora_rank: deepseek-v3)"},
		{llama, func() Plan { q := lp; q.Recompute, q.RecomputeModules = RecomputeFull, ModuleLayerNorm; return q }, h100, "recompute-modules: layernorm needs --recompute selective (recompute is full)"},
		{llama, func() Plan { q := lp; q.RecomputeModules = 64; return q }, h100, "recompute-modules: 64; allowed a set of core_attn, layernorm, mla_up_proj, moe_act"},
		{ds, func() Plan { q := pds; q.BlockScaled, q.FP8Cache = false, true; return q }, clds, "fp8-cache: needs --block-scaled (the FP8 products whose inputs it keeps)"},
	} {
		if _, err := Evaluate(Config{Model: c.m, Plan: c.p(), Cluster: c.cl}); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	if _, err := ParseModules("layernorm,attn"); err == nil || err.Error() != `recompute-modules: "attn"; allowed a comma-separated list of core_attn, layernorm, mla_up_proj, moe_act` {
		t.Errorf("ParseModules: %v", err)
	}
	if ms, err := ParseModules("moe_act, layernorm"); err != nil || ms != ModuleLayerNorm|ModuleMoEAct || ms.String() != "layernorm,moe_act" {
		t.Errorf("ParseModules: %v %v %q", ms, err, ms.String())
	}
}
