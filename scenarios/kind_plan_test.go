package scenarios

import (
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func planLesson(t *testing.T, id string, set ...string) *Lesson {
	t.Helper()
	s, ok := Get(id)
	if !ok {
		t.Fatalf("no lesson %s", id)
	}
	cfg := s.Defaults()
	for i := 0; i+1 < len(set); i += 2 {
		cfg[set[i]] = set[i+1]
	}
	les, err := Prepare(s, cfg)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return les
}

func planMetrics(les *Lesson, step int) PlanMetrics { return les.Metrics(step).(PlanMetrics) }

// Pipeline: (p−1)/m of the ideal time with p = 4: 3 with one batch, 0.75
// with four micro-batches; the schedules side by side: the same bubble for
// GPipe and 1F1B, GPipe holding more activations, interleaving less bubble.
func TestPipelineLessonNumbers(t *testing.T) {
	les := planLesson(t, "pipeline-parallel")
	if got := planMetrics(les, 1).BubbleFraction; got != 3 {
		t.Errorf("m = 1: bubble %g of ideal, want (4−1)/1 = 3", got)
	}
	if got := planMetrics(les, 2).BubbleFraction; got != 0.75 {
		t.Errorf("m = 4: bubble %g, want 0.75", got)
	}
	cmp := planMetrics(les, 3).Compare
	if len(cmp) != 3 {
		t.Fatalf("schedules step compares %d schedules", len(cmp))
	}
	gpipe, ofob, inter := cmp[0], cmp[1], cmp[2]
	if gpipe.BubbleFraction != ofob.BubbleFraction || inter.BubbleFraction >= ofob.BubbleFraction {
		t.Errorf("bubbles: gpipe %g, 1f1b %g, interleaved %g", gpipe.BubbleFraction, ofob.BubbleFraction, inter.BubbleFraction)
	}
	if gpipe.Memory.Activations <= ofob.Memory.Activations {
		t.Errorf("GPipe activations %g not above 1F1B's %g", gpipe.Memory.Activations, ofob.Memory.Activations)
	}
	// The drawn time line agrees with the closed form.
	r := les.Steps[2].Run.(*PlanRun)
	tl := r.Timelines[1].Timeline
	if got, want := tl.Bubble/tl.Ideal, ofob.BubbleFraction; math.Abs(got-want) > 0.02*want {
		t.Errorf("1F1B time line bubble %g of ideal, closed form %g (sends on the critical path aside)", got, want)
	}
}

// ZeRO: bars shrink stage by stage to 16Ψ/N of model states; stage 3
// moves more bytes.
func TestZeROLessonNumbers(t *testing.T) {
	les := planLesson(t, "zero-stages")
	cmp := planMetrics(les, 1).Compare
	if len(cmp) != 4 {
		t.Fatalf("%d bars", len(cmp))
	}
	for i := 1; i < 4; i++ {
		if cmp[i].Memory.Total >= cmp[i-1].Memory.Total {
			t.Errorf("ZeRO-%d %g not below ZeRO-%d %g", i, cmp[i].Memory.Total, i-1, cmp[i-1].Memory.Total)
		}
	}
	z3 := cmp[3].Memory
	psi := planMetrics(les, 1).Params
	if got, want := z3.Weights+z3.Gradients+z3.Optimizer, 16*psi/64; math.Abs(got-want) > 1e-6*want {
		t.Errorf("ZeRO-3 model states %g, want 16Ψ/64 = %g", got, want)
	}
	if planMetrics(les, 3).Time.DPComm <= planMetrics(les, 1).Time.DPComm {
		t.Error("ZeRO-3 does not move more bytes than plain data parallelism")
	}
}

// Recomputation: memory none > selective > full; full costs about a third
// more compute.
func TestRecomputeLessonNumbers(t *testing.T) {
	les := planLesson(t, "activation-checkpointing")
	cmp := planMetrics(les, 1).Compare
	none, sel, full := cmp[0], cmp[1], cmp[2]
	if !(none.Memory.Activations > sel.Memory.Activations && sel.Memory.Activations > full.Memory.Activations) {
		t.Errorf("activations: none %g, selective %g, full %g", none.Memory.Activations, sel.Memory.Activations, full.Memory.Activations)
	}
	if r := full.StepS / none.StepS; r < 1.15 || r > 1.45 {
		t.Errorf("full recomputation makes the step ×%.2f, want ≈ 1.3", r)
	}
}

// Gradient accumulation: memory flat across m, time per update grows.
func TestAccumulationLessonNumbers(t *testing.T) {
	les := planLesson(t, "gradient-accumulation")
	cmp := planMetrics(les, 2).Compare
	for _, c := range cmp[1:] {
		if c.Memory.Total != cmp[0].Memory.Total {
			t.Errorf("%s: %g bytes, m=1 %g: memory should stay flat", c.Label, c.Memory.Total, cmp[0].Memory.Total)
		}
	}
	one, four := planMetrics(les, 1), planMetrics(les, 2)
	if four.MicroBatches != 4 || four.GlobalBatch != 4*one.GlobalBatch {
		t.Errorf("m %d, batch %d vs %d", four.MicroBatches, four.GlobalBatch, one.GlobalBatch)
	}
	// Compute grows with the micro-batches; the optimizer update, once a
	// step, does not (and at 128 tokens it is the larger part).
	if r := four.Time.Compute / one.Time.Compute; math.Abs(r-4) > 1e-9 {
		t.Errorf("four micro-batches compute ×%.2f of one", r)
	}
	if four.Time.Optimizer != one.Time.Optimizer || four.Time.Step <= one.Time.Step {
		t.Errorf("optimizer %g vs %g, step %g vs %g", four.Time.Optimizer, one.Time.Optimizer, four.Time.Step, one.Time.Step)
	}
}

// Overlap hides part of the all-reduce.
func TestOverlapLessonNumbers(t *testing.T) {
	les := planLesson(t, "overlap")
	off, on := planMetrics(les, 1), planMetrics(les, 2)
	if off.Time.DPHidden != 0 || on.Time.DPHidden <= 0 || on.Time.Step >= off.Time.Step {
		t.Errorf("off: hidden %g step %g; on: hidden %g step %g", off.Time.DPHidden, off.Time.Step, on.Time.DPHidden, on.Time.Step)
	}
	if share := on.Time.DPHidden / on.Time.DPComm; share < 0.5 || share > 1 {
		t.Errorf("%.0f%% of the all-reduce hidden, want 50–80%% or more", 100*share)
	}
}

// TP across nodes: each layer's TP all-reduce takes longer than inside a
// node although each GPU computes half as much.
func TestTensorParallelLessonNumbers(t *testing.T) {
	les := planLesson(t, "tensor-parallel")
	in, across := planMetrics(les, 3), planMetrics(les, 4)
	if in.TP != 8 || across.TP != 16 {
		t.Fatalf("tp %d, %d", in.TP, across.TP)
	}
	perGPU := func(m PlanMetrics) float64 { return m.Time.TPComm / float64(m.MicroBatches) }
	if perGPU(across) <= perGPU(in) || across.Time.Compute >= in.Time.Compute {
		t.Errorf("TP 16: comm %g compute %g; TP 8: comm %g compute %g", perGPU(across), across.Time.Compute, perGPU(in), in.Time.Compute)
	}
}

// The seed's memory budget: 4, 2 and 4 more bytes a parameter.
func TestMemoryBudgetLessonNumbers(t *testing.T) {
	les := planLesson(t, "memory-budget")
	m := planMetrics(les, 1)
	bars := m.Compare
	psi := m.Params
	if bars[0].Memory.Total != 4*psi || bars[1].Memory.Total != 2*psi || bars[2].Memory.Total != 6*psi {
		t.Errorf("fp32 %g, bf16 %g, +adam %g for %g parameters", bars[0].Memory.Total, bars[1].Memory.Total, bars[2].Memory.Total, psi)
	}
	if bars[0].Memory.Fits || !strings.Contains(les.Table(1, "en").Rows[0].Cells[0], "B") {
		t.Error("400 GB of weights should not fit an H100")
	}
	split := planMetrics(les, 4)
	if !split.Memory.Fits {
		t.Errorf("TP 8 × PP 4: %g bytes do not fit", split.Memory.Total)
	}
}

// The planner: a search whose best plan fits, a decision, the budget with
// Amdahl's ≈ 10%; a pasted config.json makes the model the reader's own.
func TestPlannerLesson(t *testing.T) {
	les := planLesson(t, "strategy-planner")
	m := planMetrics(les, 1)
	if m.Search == nil || len(m.Search.Plans) == 0 || !m.Search.Plans[0].Memory.Fits || m.Search.Decision.Branch == "" {
		t.Fatalf("search: %+v", m.Search)
	}
	b := planMetrics(les, 5).Budget
	if len(b) != 2 || b[0].StepS != 0.55 || math.Abs(1-b[1].StepS/b[0].StepS-0.0909) > 0.001 {
		t.Errorf("budget %+v", b)
	}
	p, errs, err := NewPlayerAt("scenario=strategy-planner&gpus=64")
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	cfg := `{"model_type":"llama","num_hidden_layers":32,"hidden_size":4096,"num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256,"hidden_act":"silu","max_position_embeddings":8192}`
	if e := p.HFConfig(cfg); e != nil {
		t.Fatalf("HFConfig: %v", e)
	}
	c := p.State().Config
	if c["model"] != "custom" || c["layers"] != "32" || c["kv_heads"] != "8" || c["ffn"] != "14336" || c["vocab"] != "128256" {
		t.Errorf("config after paste: %v", c)
	}
	pm := p.Lesson().Metrics(1).(PlanMetrics)
	if math.Abs(pm.Params-8.03e9)/8.03e9 > 0.01 {
		t.Errorf("Llama-3-8B-shaped config: %g parameters, want ≈ 8.03B", pm.Params)
	}
	// A broken paste changes nothing and says what is wrong.
	before := p.State().Config.Clone()
	if e := p.HFConfig(`{"hidden_size": 4096}`); e == nil || e.Field != "hf_config" || !strings.Contains(e.Error(), "num_hidden_layers") {
		t.Errorf("bad config: %v", e)
	}
	if !p.State().Config.Equal(before) {
		t.Error("a bad paste changed the configuration")
	}
	// A router style the reader does not know is refused in the reader's
	// words, naming the key and what it reads.
	router := `{"model_type":"deepseek_v3","hidden_act":"silu","num_hidden_layers":4,"hidden_size":64,"num_attention_heads":4,"intermediate_size":128,` +
		`"vocab_size":100,"max_position_embeddings":64,"n_routed_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":32,"topk_method":"expert_choice"}`
	if e := p.HFConfig(router); e == nil || e.Key != "error.engine.hf_router" || !strings.Contains(e.Localize("zh"), "topk_method") ||
		!strings.Contains(e.Localize("zh"), "noaux_tc") || !strings.Contains(e.Localize("en"), "expert_choice") {
		t.Errorf("unknown router style: %v", e)
	}
	if !p.State().Config.Equal(before) {
		t.Error("a refused router changed the configuration")
	}
	// A mixture of experts is read right and planned with its experts,
	// not as a dense model of its attention and one expert (7.24B for
	// Mixtral); the table says what a token goes through and the CLI line
	// prints the same numbers.
	mixtral, err := os.ReadFile("../engine/model/testdata/hf/mixtral-8x7b.json")
	if err != nil {
		t.Fatal(err)
	}
	if e := p.HFConfig(string(mixtral)); e != nil {
		t.Fatalf("Mixtral pasted: %v", e)
	}
	c = p.State().Config
	if c["experts"] != "8" || c["top_k"] != "2" || c["expert_ffn"] != "14336" || c["shared_ffn"] != "0" {
		t.Errorf("config after pasting Mixtral: %v", c)
	}
	mm := p.Lesson().Metrics(1).(PlanMetrics)
	if math.Abs(mm.Params-46.7e9)/46.7e9 > 0.01 || math.Abs(mm.ActiveParams-12.9e9)/12.9e9 > 0.01 || !strings.Contains(mm.Command, "--experts 8 --top-k 2") {
		t.Errorf("Mixtral pasted: %.4g parameters, %.4g active, command %s", mm.Params, mm.ActiveParams, mm.Command)
	}
	tb := p.Lesson().Table(1, "en")
	keys := map[string]string{}
	for _, r := range tb.Rows {
		keys[r.Key] = r.Cells[0]
	}
	if keys["active_params"] != "12.9B" || keys["ep_comm_s"] == "" || !strings.Contains(keys["plan"], "EP ") {
		t.Errorf("Mixtral's table: %v", keys)
	}
	// Latent attention is read right and searched (the search runs the
	// schedules of the plans that can rank only: DeepSeek-V3's is a
	// fraction of a second natively); the plans keep its latent sizes
	// and the CLI line prints them.
	ds, err := os.ReadFile("../engine/model/testdata/hf/deepseek-v3.json")
	if err != nil {
		t.Fatal(err)
	}
	// On 64 GPUs no plan holds it: said, naming the GPUs; nothing
	// changes.
	before = p.State().Config.Clone()
	if e := p.HFConfig(string(ds)); e == nil || e.Field != "gpus" {
		t.Errorf("DeepSeek-V3 pasted on %s GPUs: %v", before["gpus"], e)
	}
	if !p.State().Config.Equal(before) {
		t.Error("a paste that fits no plan changed the configuration")
	}
	if e := p.Set("gpus", "2048"); e != nil {
		t.Fatal(e)
	}
	if e := p.HFConfig(string(ds)); e != nil {
		t.Fatalf("DeepSeek-V3 pasted: %v (%s)", e, e.Localize("zh"))
	}
	c = p.State().Config
	if c["kv_lora_rank"] != "512" || c["q_lora_rank"] != "1536" || c["experts"] != "256" || c["dense_layers"] != "3" || c["mtp_layers"] != "1" {
		t.Errorf("config after pasting DeepSeek-V3: %v", c)
	}
	dm := p.Lesson().Metrics(1).(PlanMetrics)
	if math.Abs(dm.Params-671e9)/671e9 > 0.01 || math.Abs(dm.ActiveParams-37e9)/37e9 > 0.02 || !strings.Contains(dm.Command, "--kv-lora-rank 512") {
		t.Errorf("DeepSeek-V3 pasted: %.4g parameters, %.4g active, command %s", dm.Params, dm.ActiveParams, dm.Command)
	}
	if dm.Search == nil || len(dm.Search.Plans) == 0 || dm.Search.Fitting < len(dm.Search.Plans) {
		t.Fatalf("DeepSeek-V3's search: %+v", dm.Search)
	}
	if best := dm.Search.Plans[0]; best.EP < 1 || best.Model != "custom" {
		t.Errorf("DeepSeek-V3's best plan: %+v", best)
	}
	// On DeepSeek's own GPU, the H800 (the H100's compute, NVLink cut to
	// 400 GB/s two-way): searched again, the command names it, and its
	// best plan cannot be faster than the H100's.
	if e := p.Set("gpu", "h800"); e != nil {
		t.Fatal(e)
	}
	hm := p.Lesson().Metrics(1).(PlanMetrics)
	if !strings.Contains(hm.Command, "--gpu h800") || hm.Search == nil || len(hm.Search.Plans) == 0 {
		t.Fatalf("DeepSeek-V3 on H800s: command %s, search %+v", hm.Command, hm.Search)
	}
	if h, d := hm.Search.Plans[0].Time.Step, dm.Search.Plans[0].Time.Step; h < d {
		t.Errorf("DeepSeek-V3's best step on H800s %.3f s, on H100s %.3f s: the H800's slower NVLink made it faster", h, d)
	}
	if e := p.Set("gpu", "h100"); e != nil {
		t.Fatal(e)
	}
	// The ranked rows name EP: plans that differ by it alone read apart.
	labels := map[string]bool{}
	for _, lang := range []string{"en", "zh"} {
		for _, r := range p.Lesson().Table(1, lang).Rows {
			if strings.HasPrefix(r.Key, "rank_") {
				if labels[r.Label] || !strings.Contains(r.Label, "EP") {
					t.Errorf("%s: ranked row %q repeated or without EP", lang, r.Label)
				}
				labels[r.Label] = true
			}
		}
	}
	if len(labels) < 4 {
		t.Errorf("ranked rows: %v", labels)
	}
	// An engine refusal names the knob.
	p2, _, _ := NewPlayerAt("scenario=pipeline-parallel")
	if e := p2.Set("interleave", "3"); e == nil || e.Field != "interleave" {
		t.Errorf("interleave 3 with 96 layers over 4 stages of 8 micro-batches: %v", e)
	}
}

// Every strategy lesson asks at least one question; each is worded from
// the live configuration in both languages, offers distinct choices, and
// its answer follows the knobs.
func TestStrategyQuestions(t *testing.T) {
	for _, id := range []string{"memory-budget", "data-parallel", "tensor-parallel", "pipeline-parallel", "3d-parallel",
		"zero-stages", "activation-checkpointing", "gradient-accumulation", "overlap", "strategy-planner"} {
		les := planLesson(t, id)
		asked := 0
		for step := 1; step <= len(les.Steps); step++ {
			for _, lang := range []string{"en", "zh"} {
				q, ok := les.Question(step, lang)
				if !ok {
					if les.Steps[step-1].Step.Predict != "" {
						t.Errorf("%s step %d: question %q has no wording", id, step, les.Steps[step-1].Step.Predict)
					}
					continue
				}
				asked++
				for _, s := range append([]string{q.Prompt, q.Reveal}, q.Choices...) {
					if strings.ContainsAny(s, "{⟦") || s == "" {
						t.Errorf("%s step %d %s: hole in %q", id, step, lang, s)
					}
				}
				seen := map[string]bool{}
				for _, c := range q.Choices {
					if seen[c] {
						t.Errorf("%s step %d: choice %q twice in %v", id, step, c, q.Choices)
					}
					seen[c] = true
				}
				if q.Answer < 0 || q.Answer >= len(q.Choices) || len(q.Choices) < 3 || !strings.Contains(q.Reveal, q.Choices[q.Answer]) {
					t.Errorf("%s step %d: answer %d of %v, reveal %q", id, step, q.Answer, q.Choices, q.Reveal)
				}
			}
		}
		if asked == 0 {
			t.Errorf("%s asks nothing", id)
		}
	}
	// The pipeline's question reads p: (p − 1)/4 with p = 8 is 175%.
	les := planLesson(t, "pipeline-parallel", "pp", "8")
	if q, _ := les.Question(1, "en"); q.Choices[q.Answer] != "175%" || !strings.Contains(q.Prompt, "p = 8") {
		t.Errorf("p = 8: %q, answer %q", q.Prompt, q.Choices[q.Answer])
	}
}

// The player keeps the reader's answer for the step and configuration it
// was given under, and reveals the answer only then.
func TestPlayerAnswers(t *testing.T) {
	p, _, err := NewPlayerAt("scenario=pipeline-parallel&step=1")
	if err != nil {
		t.Fatal(err)
	}
	q := p.Report().Question
	if q == nil || q.Answered || q.Reveal != "" || q.Answer != -1 {
		t.Fatalf("before answering: %+v", q)
	}
	right, _ := p.les.Question(1, "en")
	wrong := (right.Answer + 1) % len(right.Choices)
	if e := p.Command([]byte(`{"type":"answer","choice":` + strconv.Itoa(wrong) + `}`)); e != nil {
		t.Fatal(e)
	}
	q = p.Report().Question
	if !q.Answered || q.Correct || q.Choice != wrong || q.Answer != right.Answer || q.Reveal == "" {
		t.Errorf("after a wrong answer: %+v", q)
	}
	// A knob change asks again.
	if e := p.Set("pp", "8"); e != nil {
		t.Fatal(e)
	}
	if q = p.Report().Question; q.Answered {
		t.Error("the answer survived a change of p")
	}
	for _, bad := range []string{`{"type":"answer"}`, `{"type":"answer","choice":9}`, `{"type":"answer","choice":1.5}`} {
		if e := p.Command([]byte(bad)); e == nil || e.Field != "choice" {
			t.Errorf("%s: %v", bad, e)
		}
	}
	p.Goto(2) // no question on this step
	if p.Report().Question != nil {
		t.Error("step 2 reports a question")
	}
	if e := p.Command([]byte(`{"type":"answer","choice":0}`)); e == nil {
		t.Error("answering a step without a question was accepted")
	}
}

// The planner's other views show the plan the reader ranks: rank 2's
// memory and time line are the search's second plan.
func TestPlannerChosenPlan(t *testing.T) {
	les := planLesson(t, "strategy-planner", "rank", "2")
	sr := planMetrics(les, 1).Search
	second := sr.Plans[1]
	for _, step := range []int{3, 4} {
		m := planMetrics(les, step)
		if m.TP != second.TP || m.PP != second.PP || m.DP != second.DP || m.ZeRO != second.ZeRO || m.Time.Step != second.Time.Step {
			t.Errorf("step %d shows TP %d PP %d DP %d ZeRO %d %g s; rank 2 is %+v", step, m.TP, m.PP, m.DP, m.ZeRO, m.Time.Step, second)
		}
	}
}

// The planner's numbers list the ranked plans, each row a button that sets
// rank to its number.
func TestPlannerTableRanks(t *testing.T) {
	les := planLesson(t, "strategy-planner")
	tb := les.Table(2, "en")
	n := 0
	for _, r := range tb.Rows {
		if r.Action != nil {
			n++
			if r.Action.Knob != "rank" || r.Action.Value != strconv.Itoa(n) || r.Key != "rank_"+strconv.Itoa(n) {
				t.Errorf("row %d: %+v", n, r)
			}
		}
	}
	if n == 0 || n > 10 {
		t.Errorf("%d ranked rows", n)
	}
}

// Every architecture a pasted config.json is refused for is said why in
// each language, not as a JSON error.
func TestHFUnmodelledWorded(t *testing.T) {
	p, _, _ := NewPlayerAt("scenario=strategy-planner")
	base := `"model_type":"llama","hidden_act":"silu","num_hidden_layers":4,"hidden_size":64,"num_attention_heads":4,"num_key_value_heads":4,"intermediate_size":128,"vocab_size":100`
	for _, k := range model.UnmodelledKeys() {
		for _, lang := range i18n.Langs() {
			if !i18n.Has(lang, "error.hf_why."+k) {
				t.Errorf("%s: no error.hf_why.%s", lang, k)
			}
		}
		var js string
		switch k {
		case "model_type":
			js = `{` + strings.Replace(base, `"llama"`, `"gemma"`, 1) + `}`
		case "moe_layers":
			js = `{` + strings.Replace(base, `"llama"`, `"llama4_text"`, 1) + `,"moe_layers":[0]}`
		case "moe_layer_freq":
			js = `{` + base + `,"` + k + `":2}`
		case "attention_bias", "mlp_bias":
			js = `{` + base + `,"` + k + `":true}`
		default:
			js = `{` + base + `,"` + k + `":{"x":2}}`
		}
		e := p.HFConfig(js)
		if e == nil || e.Key != "error.engine.hf_unmodelled" {
			t.Errorf("%s: %v, want error.engine.hf_unmodelled", k, e)
			continue
		}
		if zh := e.Localize("zh"); !strings.Contains(zh, i18n.T("zh", "error.hf_why."+k)) {
			t.Errorf("%s in Chinese: %q", k, zh)
		}
	}
	// A value of the wrong type names the field, not "not valid JSON".
	e := p.HFConfig(`{` + base + `,"hidden_size":"64"}`)
	if e == nil || e.Key != "error.engine.hf_type" || !strings.Contains(e.Localize("zh"), "hidden_size") {
		t.Errorf("hidden_size a string: %v", e)
	}
}

// DeepSeek-V3's config.json pasted into the sandbox is planned with its
// latent attention and multi-token prediction: 671B parameters, 37B
// active, the step and memory of the sandbox's deepseek-v3 at the same
// knobs (the router's bias a routed expert aside, which the knobs do not
// carry: 14,848 parameters), and a CLI line naming its sizes; a paste of
// a model without latent attention sets them back to 0.
func TestSandboxPastesMLA(t *testing.T) {
	knobs := "&gpu=h800&gpus=2048&tp=1&pp=16&zero=1&recompute=none&global_batch=15360"
	p, errs, err := NewPlayerAt("scenario=sandbox" + knobs) // EP after the paste: GPT-3 is dense
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	knobs += "&ep=64"
	ds, err := os.ReadFile("../engine/model/testdata/hf/deepseek-v3.json")
	if err != nil {
		t.Fatal(err)
	}
	if e := p.HFConfig(string(ds)); e != nil {
		t.Fatalf("DeepSeek-V3 pasted: %v", e)
	}
	if e := p.Set("ep", "64"); e != nil {
		t.Fatalf("ep 64: %v", e)
	}
	c := p.State().Config
	if c["model"] != "custom" || c["kv_lora_rank"] != "512" || c["q_lora_rank"] != "1536" || c["qk_nope_head_dim"] != "128" ||
		c["qk_rope_head_dim"] != "64" || c["v_head_dim"] != "128" || c["mtp_layers"] != "1" || c["experts"] != "256" || c["seq"] != "4096" {
		t.Errorf("config after the paste: %v", c)
	}
	got := p.Lesson().Metrics(1).(PlanMetrics)
	if math.Abs(got.Params-671e9)/671e9 > 0.01 || math.Abs(got.ActiveParams-37e9)/37e9 > 0.02 {
		t.Errorf("DeepSeek-V3 pasted: %.4g parameters, %.4g active; want ≈ 671B and 37B", got.Params, got.ActiveParams)
	}
	pre, errs, err := NewPlayerAt("scenario=sandbox&model=deepseek-v3" + knobs)
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	want := pre.Lesson().Metrics(1).(PlanMetrics)
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Abs(b) }
	if !near(got.Params, want.Params) || !near(got.Time.Step, want.Time.Step) || !near(got.Memory.Total, want.Memory.Total) ||
		!near(got.Memory.Activations, want.Memory.Activations) || got.Time.Step == 0 {
		t.Errorf("pasted: %g parameters, step %g s, %g bytes; the preset: %g, %g s, %g bytes",
			got.Params, got.Time.Step, got.Memory.Total, want.Params, want.Time.Step, want.Memory.Total)
	}
	sizes := "--kv-lora-rank 512 --q-lora-rank 1536 --qk-nope-head-dim 128 --qk-rope-head-dim 64 --v-head-dim 128 --mtp-layers 1 "
	_, tail, _ := strings.Cut(want.Command, " --gpu ")
	if !strings.Contains(got.Command, " --experts 256 --top-k 8 --expert-ffn 2048 --shared-ffn 2048 --dense-layers 3 "+sizes+"--gpu "+tail) {
		t.Errorf("command %s\nwant the sizes then the preset's --gpu %s", got.Command, tail)
	}
	// Mixtral after it: standard attention again.
	mixtral, err := os.ReadFile("../engine/model/testdata/hf/mixtral-8x7b.json")
	if err != nil {
		t.Fatal(err)
	}
	if e := p.Set("ep", "8"); e != nil {
		t.Fatalf("ep 8: %v", e)
	}
	if e := p.HFConfig(string(mixtral)); e != nil {
		t.Fatalf("Mixtral pasted: %v", e)
	}
	if c := p.State().Config; c["kv_lora_rank"] != "0" || c["mtp_layers"] != "0" || c["q_lora_rank"] != "0" {
		t.Errorf("config after pasting Mixtral: %v", c)
	}
	if m := p.Lesson().Metrics(1).(PlanMetrics); strings.Contains(m.Command, "lora") || strings.Contains(m.Command, "mtp") {
		t.Errorf("Mixtral's command %s", m.Command)
	}
}

// The sandbox: every knob reaches the engine — each one moved from the
// defaults changes the plan it evaluates as the CLI's flag would — and a
// plan whose time line would be more blocks than the picture can draw
// is refused with the field and the limit named, the last good plan kept.
func TestSandbox(t *testing.T) {
	base := planMetrics(planLesson(t, "sandbox"), 1)
	if base.TP != 8 || base.PP != 8 || base.DP != 8 || !strings.Contains(base.Command, "--model gpt3-175b --gpu h100 --gpus 512") {
		t.Fatalf("defaults: TP %d PP %d DP %d, %s", base.TP, base.PP, base.DP, base.Command)
	}
	for _, c := range []struct{ knob, value, flag string }{
		{"gpu", "b200", "--gpu b200"}, {"gpus", "1024", "--gpus 1024"}, {"gpus_per_node", "16", "--gpus-per-node 16"},
		{"inter", "ib-xdr", "--inter ib-xdr"}, {"tp", "4", "--tp 4"}, {"pp", "4", "--pp 4"}, {"zero", "2", "--zero 2"},
		{"recompute", "full", "--recompute full"}, {"micro_batch", "2", "--micro-batch 2"}, {"global_batch", "512", "--global-batch 512"},
		{"sp", "off", "--sp=false"}, {"flash", "off", "--flash=false"}, {"overlap", "off", "--overlap=false"}, {"dtype", "fp8", "--dtype fp8"},
		{"seq", "4096", "--seq 4096"}, {"cp", "2", "--cp 2 --cp-algo allgather"},
	} {
		les := planLesson(t, "sandbox", c.knob, c.value)
		m := planMetrics(les, 1)
		if !strings.Contains(m.Command+" ", " "+c.flag+" ") {
			t.Errorf("%s=%s: command %s, want %s", c.knob, c.value, m.Command, c.flag)
		}
		if m.Time.Step == base.Time.Step && m.Memory.Total == base.Memory.Total {
			t.Errorf("%s=%s changed neither the step time nor the memory", c.knob, c.value)
		}
	}
	// The cluster step's colouring, the reader's: by stage, sends on the links.
	for _, by := range []string{"tp", "pp", "dp"} {
		les := planLesson(t, "sandbox", "colour", by)
		if got := les.Steps[1].Run.(*PlanRun).ColourBy; got != by {
			t.Errorf("colour=%s: the cluster is coloured by %s", by, got)
		}
	}
	// A mixture of experts with EP 8, DeepSeek-V3's dispatch and overlap.
	m := planMetrics(planLesson(t, "sandbox", "model", "mixtral-8x7b", "gpus", "64", "tp", "1", "pp", "4", "ep", "8", "zero", "1"), 1)
	if m.EP != 8 || !strings.Contains(m.Command, "--ep 8") {
		t.Errorf("mixtral EP 8: ep %d, %s", m.EP, m.Command)
	}
	// 2 × 16 stages × 4,096 micro-batches: 131,072 blocks.
	p, errs, err := NewPlayerAt("scenario=sandbox&pp=16&gpus=256&global_batch=8192")
	if err != nil || len(errs) != 1 || errs[0].Key != "error.timeline_blocks" || errs[0].Field != "global_batch" {
		t.Fatalf("a 131,072-block time line: %v %v", err, errs)
	}
	if msg := errs[0].Localize("en"); !strings.Contains(msg, "131072") || !strings.Contains(msg, strconv.Itoa(MaxDrawnBlocks)) {
		t.Errorf("message %q names neither the blocks nor the limit", msg)
	}
	if got := p.Lesson().Metrics(1).(PlanMetrics); got.Command != base.Command {
		t.Errorf("after the refusal the lesson shows %s, want the last good %s", got.Command, base.Command)
	}
}

// The reader's refusals of issue 36 read in the reader's words, each by
// its own key (not "not valid JSON"): an unknown model_type, a key its
// architecture does not read, a mixture's key without model_type, two
// names of one setting, 0 experts, a file too large or too deep; and a
// Llama 4 Maverick, read right, which no lesson's knobs hold.
func TestHFArchitectureRefusalsWorded(t *testing.T) {
	p, _, _ := NewPlayerAt("scenario=strategy-planner")
	shape := `"hidden_act":"silu","num_hidden_layers":4,"hidden_size":64,"num_attention_heads":4,"num_key_value_heads":4,"intermediate_size":128,"vocab_size":100`
	maverick, err := os.ReadFile("../engine/model/testdata/hf/llama4-maverick.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ js, key, zh string }{
		{`{"model_type":"falcon",` + shape + `}`, "error.engine.hf_model_type", "falcon"},
		{`{"model_type":"llama",` + shape + `,"num_local_experts":8}`, "error.engine.hf_not_read", "num_local_experts"},
		{`{` + shape + `,"n_routed_experts":8}`, "error.engine.hf_needs_type", "n_routed_experts"},
		{`{"model_type":"mixtral",` + shape + `,"num_local_experts":8,"num_experts":4}`, "error.engine.hf_alias", "num_experts"},
		{`{"model_type":"mixtral",` + shape + `,"num_local_experts":0}`, "error.engine.hf_range", "num_local_experts"},
		{`{"model_type":"llama","x":"` + strings.Repeat("x", 1<<20) + `"}`, "error.engine.hf_size", "1048576"},
		{`{"model_type":"llama","x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`, "error.engine.hf_deep", "1000"},
		{`{"model_type":"qwen2",` + shape[:len(shape)-len(`,"vocab_size":100`)] + `}`, "error.engine.hf_missing", "vocab_size"},
		{string(maverick), "error.hf_moe_every", "2"},
	} {
		e := p.HFConfig(c.js)
		if e == nil || e.Key != c.key {
			t.Errorf("HFConfig(%.80s…): %v, want %s", c.js, e, c.key)
			continue
		}
		if zh := e.Localize("zh"); !strings.Contains(zh, c.zh) || strings.Contains(zh, "JSON") {
			t.Errorf("HFConfig(%.80s…) in Chinese: %q", c.js, zh)
		}
	}
}

// The GPUs of published runs are in the sandbox's and the planner's menus
// (the lessons with fixed GPUs keep theirs), each plans with its own
// links, and the sandbox's cluster step names the node's link: PCIe 5 on
// the PCIe cards, whose NVLink bridges join pairs only.
func TestSandboxPublishedRunGPUs(t *testing.T) {
	added := []string{"a100-40gb", "a800", "h100-pcie", "h100-nvl", "h20", "gh200"}
	for _, id := range []string{"sandbox", "strategy-planner"} {
		s, _ := Get(id)
		k, _ := s.Knob("gpu")
		for _, g := range added {
			if !slices.Contains(k.Values, g) {
				t.Errorf("%s: no %s in the GPU menu %v", id, g, k.Values)
			}
		}
	}
	for _, id := range []string{"roofline", "memory-wall", "cpu-vs-gpu", "simt-launch", "fused-kernels", "flash-attention", "memory-budget"} {
		s, _ := Get(id)
		if k, ok := s.Knob("gpu"); ok && slices.Contains(k.Values, "h20") {
			t.Errorf("%s: its fixed GPUs grew: %v", id, k.Values)
		}
	}
	for _, c := range []struct{ gpu, link string }{
		{"h100", "NVLink 4"}, {"a800", "NVLink A800"}, {"h100-pcie", "PCIe 5.0 x16"}, {"h100-nvl", "PCIe 5.0 x16"}, {"gh200", "NVLink 4"},
	} {
		les := planLesson(t, "sandbox", "gpu", c.gpu)
		if m := planMetrics(les, 1); !strings.Contains(m.Command+" ", " --gpu "+c.gpu+" ") {
			t.Errorf("gpu=%s: command %s", c.gpu, m.Command)
		}
		if text := i18n.T("en", "step.sandbox.cluster.text", les.StepNarrationArgs(2, "en")...); !strings.Contains(text, "all-reduces over "+c.link+";") {
			t.Errorf("gpu=%s: the cluster step reads %q, want the node's link %s", c.gpu, text, c.link)
		}
	}
}
