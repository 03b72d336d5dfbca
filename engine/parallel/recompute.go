package parallel

import (
	"fmt"
	"strings"
)

// Modules is the set of a layer's parts selective recomputation runs
// again in the backward pass instead of storing their outputs, as
// Megatron-Core's --recompute-modules names them. The zero value is
// ModuleCoreAttn alone, Megatron-LM's selective recomputation
// (Korthikanti et al. 2022).
type Modules uint8

// The parts selective recomputation can run again.
const (
	// ModuleCoreAttn: the attention core (QKᵀ, softmax, dropout, ×V);
	// the scores (standard attention) or the softmax statistics
	// (FlashAttention) are not kept.
	ModuleCoreAttn Modules = 1 << iota
	// ModuleLayerNorm: the norms, from their inputs; their outputs (the
	// inputs of the products after them) are not kept.
	ModuleLayerNorm
	// ModuleMLAUpProj: latent attention's up projections, Q, K and V
	// from the latents, which are kept (DeepSeek-V3 §3.3.3).
	ModuleMLAUpProj
	// ModuleMoEAct: the feed-forward block's activation (SwiGLU's
	// output, the down projection's input) from its inputs.
	ModuleMoEAct
)

var moduleNames = [...]struct {
	m    Modules
	name string
}{{ModuleCoreAttn, "core_attn"}, {ModuleLayerNorm, "layernorm"}, {ModuleMLAUpProj, "mla_up_proj"}, {ModuleMoEAct, "moe_act"}}

// ModuleNames are the names ParseModules reads, in order.
func ModuleNames() []string {
	n := make([]string, len(moduleNames))
	for i, m := range moduleNames {
		n[i] = m.name
	}
	return n
}

// ParseModules reads a comma-separated list of module names.
func ParseModules(s string) (Modules, error) {
	var ms Modules
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		found := false
		for _, m := range moduleNames {
			if f == m.name {
				ms, found = ms|m.m, true
			}
		}
		if !found {
			return 0, fmt.Errorf("recompute-modules: %q; allowed a comma-separated list of %s", f, strings.Join(ModuleNames(), ", "))
		}
	}
	return ms, nil
}

// String is the modules' names, comma-separated, in ModuleNames' order.
func (ms Modules) String() string {
	var n []string
	for _, m := range moduleNames {
		if ms&m.m != 0 {
			n = append(n, m.name)
		}
	}
	return strings.Join(n, ",")
}

// modules is what selective recomputation runs again in the plan (none
// without it, every part with full recomputation).
func (p Plan) modules() Modules {
	switch p.Recompute {
	case RecomputeSelective:
		if p.RecomputeModules == 0 {
			return ModuleCoreAttn
		}
		return p.RecomputeModules
	case RecomputeFull:
		return ModuleCoreAttn | ModuleLayerNorm | ModuleMLAUpProj | ModuleMoEAct
	}
	return 0
}

// validateRecompute refuses modules the plan cannot recompute.
func (p Plan) validateRecompute(mla bool) error {
	switch {
	case p.RecomputeModules >= ModuleMoEAct<<1:
		return fmt.Errorf("recompute-modules: %d; allowed a set of %s", p.RecomputeModules, strings.Join(ModuleNames(), ", "))
	case p.RecomputeModules != 0 && p.Recompute != RecomputeSelective:
		return fmt.Errorf("recompute-modules: %s needs --recompute selective (recompute is %s)", p.RecomputeModules, p.Recompute)
	case p.RecomputeModules&ModuleMLAUpProj != 0 && !mla:
		return fmt.Errorf("recompute-modules: mla_up_proj needs latent attention (a model with kv_lora_rank: deepseek-v3)")
	case p.FP8Cache && !p.BlockScaled:
		return fmt.Errorf("fp8-cache: needs --block-scaled (the FP8 products whose inputs it keeps)")
	}
	return nil
}

// swigluRewrites says whether the backward writes SwiGLU's product again
// (Plan.FusedSwiGLU) — unless recomputation already brings it back.
func (p Plan) swigluRewrites() bool { return p.FusedSwiGLU && p.modules()&ModuleMoEAct == 0 }

// inputBytes is the bytes a value of a product's input kept for the
// backward pass: BF16's 2, or, under FP8Cache, FP8 with its 1×128 tile's
// scale (DeepSeek-V3 §3.3.3: "cache the activations in FP8 for the
// backward pass of the Linear operator").
func (p Plan) inputBytes() float64 {
	if p.FP8Cache {
		return fp8Tile
	}
	return 2
}

// without is the plan storing every activation: what a layer being
// recomputed under full recomputation holds while it runs.
func (p Plan) without() Plan {
	p.Recompute, p.RecomputeModules = RecomputeNone, 0
	return p
}
