// Package validate holds every published figure the engine is held to,
// one row each: where the figure comes from, the configuration as that
// run had it, the published value, the engine's, the error and the row's
// tolerance. The engine value of a row is computed here, by calling the
// engine with that configuration; TestEveryRowWithinTolerance fails when
// a row leaves its tolerance, and gpuscope validate prints the rows.
//
// A row whose Status is Open is a known, stated deviation the engine does
// not yet reproduce: it is printed as such, with why, and left out of the
// tolerance test and of the held rows' mean and maximum error (Summary);
// the means over all rows (AllMeans), which the README and the course
// quote, count it like any other. No tolerance is widened to make a row
// pass, and no constant is fitted to one.
//
// A row is Unseen when it was set aside before issue 37's mechanisms were
// built (HeldOut; testdata/issue37/SPLIT.md): nobody looked at its engine
// value while building. issue37.go holds issue 37's 63 rows and the one
// rule by which each is configured.
//
// The CLI and the course's build use the rows; the browser build links
// this package only for validate.Llama3, through scenarios' fault lesson
// (zoom_faults.go), and none of the rows.
package validate

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuscope/gpuscope/engine/collective"
	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/model"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
)

// Status says whether a row is held to its tolerance.
type Status string

const (
	// Held rows fail the tests when they leave their tolerance.
	Held Status = "held"
	// Open rows are known deviations, stated and not yet reproduced.
	Open Status = "open"
)

// Row is one published figure against the engine.
type Row struct {
	Name      string  // short and unique
	Source    string  // paper, table, row
	Quantity  string  // what is compared, with its unit
	Published float64 // the published value
	Engine    float64 // the engine's, for Config
	Error     float64 // (Engine − Published) / Published
	Tolerance float64 // the largest |Error| the row is held to
	Config    string  // the configuration as the run had it: a gpuscope command line where one reproduces it
	Status    Status
	Note      string // why an open row is open; what the configuration cannot say
	// PlanField is the field of gpuscope plan --json that Engine is
	// (a dotted path: "time.step_s"), when Config is a gpuscope plan
	// command line whose output holds it; empty otherwise.
	PlanField string
	// Unseen marks the rows set aside before issue 37's mechanisms were
	// built (HeldOut): nobody looked at their engine values while
	// building. Every other row was in front of the engine's builders.
	Unseen bool
}

// Within reports whether the row's error is inside its tolerance.
func (r Row) Within() bool { return math.Abs(r.Error) <= r.Tolerance }

func row(name, source, quantity string, published, engine, tol float64, config string) Row {
	return Row{Name: name, Source: source, Quantity: quantity, Published: published, Engine: engine,
		Error: (engine - published) / published, Tolerance: tol, Config: config, Status: Held}
}

// Summary is the mean and the largest absolute error over the held rows
// (gpuscope validate's mean_abs_error and max_abs_error; Means is over
// every row).
func Summary(rows []Row) (mean, maxAbs float64) {
	n := 0
	for _, r := range rows {
		if r.Status != Held {
			continue
		}
		e := math.Abs(r.Error)
		mean += e
		maxAbs = max(maxAbs, e)
		n++
	}
	if n > 0 {
		mean /= float64(n)
	}
	return mean, maxAbs
}

// Mean is the mean absolute and the mean signed error over some rows.
type Mean struct {
	Rows            int
	AbsError, Error float64 // NaN when Rows is 0
}

// Means are the errors over every row, held and open alike (the figure
// the README and the course quote), and over the seen and the unseen
// rows apart.
type Means struct {
	All, Seen, Unseen Mean
}

func mean(rows []Row, keep func(Row) bool) Mean {
	m := Mean{}
	for _, r := range rows {
		if keep(r) {
			m.AbsError += math.Abs(r.Error)
			m.Error += r.Error
			m.Rows++
		}
	}
	m.AbsError /= float64(m.Rows)
	m.Error /= float64(m.Rows)
	return m
}

// AllMeans is Means over rows.
func AllMeans(rows []Row) Means {
	return Means{
		All:    mean(rows, func(Row) bool { return true }),
		Seen:   mean(rows, func(r Row) bool { return !r.Unseen }),
		Unseen: mean(rows, func(r Row) bool { return r.Unseen }),
	}
}

// Rows computes every row. It returns an error only when the engine
// refuses a configuration, which the tests treat as a failure.
func Rows() ([]Row, error) {
	var rows []Row
	for _, f := range []func() ([]Row, error){zeroRows, korthikantiRows, narayananRows, llama3Rows, deepSeekRows, ncclRows, gemmRows, paramRows, issue37Rows, trainingRunRows} {
		r, err := f()
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// --- ZeRO (Rajbhandari et al., arXiv 1910.02054) ---

func zeroRows() ([]Row, error) {
	want := []float64{120e9, 31.4e9, 16.6e9, 1.88e9}
	names := []string{"baseline", "stage 1 (Pos)", "stage 2 (Pos+g)", "stage 3 (Pos+g+p)"}
	var rows []Row
	for stage, w := range want {
		m, err := parallel.ZeROStates(7.5e9, 64, stage, 16)
		if err != nil {
			return nil, err
		}
		rows = append(rows, row(fmt.Sprintf("zero-7.5b-stage%d", stage),
			"Rajbhandari et al. 2020 (ZeRO, arXiv 1910.02054), Table 1 (and Figure 1): Ψ = 7.5B, N = 64, "+names[stage],
			"model-state bytes a GPU", w, m.Total(), 0.005,
			fmt.Sprintf("gpuscope plan --params 7.5e9 --gpus 64 --zero %d --bytes-per-param 16", stage)))
		rows[len(rows)-1].PlanField = "memory.total_bytes"
		rows[len(rows)-1].Note = "16 bytes a parameter: mixed-precision Adam (K = 12)"
	}
	return rows, nil
}

// --- Korthikanti et al. 2022 (arXiv 2205.05198) ---

// GPT is a Megatron GPT shape: V 51,200, s 2048, FFN 4h, GeLU, biases,
// learned positions, tied embeddings (Narayanan's and Korthikanti's runs).
func GPT(L, h, a int) model.Transformer {
	return model.Transformer{ID: "gpt", Layers: L, Hidden: h, Heads: a, KVHeads: a, Seq: 2048, Vocab: 51200,
		FFNSize: 4 * h, FFN: model.GeLU, Biases: true, LearnedPositions: true, Tied: true}
}

// KorthikantiRow is one of Korthikanti et al.'s models (their Table 3:
// A100s, TP 8, DP 1, V 51,200, s 2048) with its end-to-end iteration
// times: full recomputation without sequence parallelism, and sequence
// parallelism with selective recomputation, and the latter's MFU.
type KorthikantiRow struct {
	Params                              string
	A, H, L, TP, PP, GPUs, Batch, Micro int
	Full, Selective, MFU                float64
}

// KorthikantiRows are the four models: 22B, 175B (GPT-3), 530B (MT-NLG)
// and 1T.
var KorthikantiRows = []KorthikantiRow{
	{"22b", 64, 6144, 48, 8, 1, 8, 4, 4, 1.42, 1.10, 0.415},
	{"175b", 96, 12288, 96, 8, 8, 64, 64, 1, 18.13, 13.75, 0.514},
	{"530b", 128, 20480, 105, 8, 35, 280, 280, 1, 49.05, 37.83, 0.560},
	{"1t", 160, 25600, 128, 8, 64, 512, 512, 1, 94.42, 71.49, 0.563},
}

// Korthikanti is a model of Korthikanti et al.'s with the given sequence
// parallelism, recomputation and v chunks a stage (18 bytes a parameter,
// no FlashAttention: 2022's Megatron-LM).
func Korthikanti(row KorthikantiRow, sp bool, rc parallel.Recompute, v int) parallel.Config {
	sched := parallel.OneFOneB
	if v > 1 {
		sched = parallel.Interleaved
	}
	p := parallel.Plan{TP: row.TP, PP: row.PP, DP: row.GPUs / (row.TP * row.PP), Interleave: v, SP: sp, Recompute: rc, MicroBatch: row.Micro, GlobalBatch: row.Batch,
		Schedule: sched, BytesPerParam: 18, Dtype: hw.BF16, Overlap: true}
	return parallel.Config{Model: GPT(row.L, row.H, row.A), Plan: p, Cluster: parallel.DefaultCluster(hw.MustGPU("a100-80gb"), row.GPUs)}
}

// Korthikanti22B is Korthikanti et al.'s 22B run on 8 A100s (TP 8, PP 1,
// b = B = 4).
func Korthikanti22B(sp bool, rc parallel.Recompute) parallel.Config {
	return Korthikanti(KorthikantiRows[0], sp, rc, 1)
}

// KorthikantiBest is the fastest plan that fits over 1–4 chunks a stage
// (v must divide the layers a stage; the paper's table gives no v).
func KorthikantiBest(row KorthikantiRow, sp bool, rc parallel.Recompute) (parallel.Result, int, error) {
	var best parallel.Result
	bv := 0
	for v := 1; v <= 4; v++ {
		r, err := evaluate(Korthikanti(row, sp, rc, v))
		if err != nil || !r.Memory.Fits {
			continue
		}
		if bv == 0 || r.Time.Step < best.Time.Step {
			best, bv = r, v
		}
	}
	if bv == 0 {
		return best, 0, fmt.Errorf("validate: no plan fits Korthikanti's %s", row.Params)
	}
	return best, bv, nil
}

func korthikantiRows() ([]Row, error) {
	var rows []Row
	for _, kr := range KorthikantiRows {
		src := fmt.Sprintf("Korthikanti et al. 2022 (arXiv 2205.05198), end-to-end iteration times: %s, %d A100s, TP %d, PP %d, batch %d", strings.ToUpper(kr.Params), kr.GPUs, kr.TP, kr.PP, kr.Batch)
		full, vf, err := KorthikantiBest(kr, false, parallel.RecomputeFull)
		if err != nil {
			return nil, err
		}
		sel, vs, err := KorthikantiBest(kr, true, parallel.RecomputeSelective)
		if err != nil {
			return nil, err
		}
		cmd := func(v int) string {
			return fmt.Sprintf("gpuscope plan --software megatron-2022 --layers %d --hidden %d --heads %d --seq 2048 --vocab 51200 --gpu a100-80gb --gpus %d --tp %d --pp %d --interleave %d --micro-batch %d --global-batch %d",
				kr.L, kr.H, kr.A, kr.GPUs, kr.TP, kr.PP, v, kr.Micro, kr.Batch)
		}
		r := []Row{
			row("korthikanti-"+kr.Params+"-full", src+", full recomputation", "iteration time, s", kr.Full, full.Time.Step, 0.10, cmd(vf)+" --sp=false --recompute full"),
			row("korthikanti-"+kr.Params+"-sp-selective", src+", sequence parallel + selective recomputation", "iteration time, s", kr.Selective, sel.Time.Step, 0.10, cmd(vs)),
			row("korthikanti-"+kr.Params+"-mfu", src+", sequence parallel + selective recomputation", "MFU", kr.MFU, sel.MFU, 0.10, cmd(vs)),
		}
		r[0].PlanField, r[1].PlanField, r[2].PlanField = "time.step_s", "time.step_s", "mfu"
		if kr.PP > 1 {
			for i := range r {
				r[i].Note = "chunks a stage: the engine's fastest that fits (the paper's table gives none)"
			}
		}
		for i := range r {
			if why, ok := korthikantiOpen[r[i].Name]; ok {
				r[i].Status, r[i].Note = Open, why+"; "+r[i].Note
			}
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// korthikantiOpen are the rows of Korthikanti et al.'s table the engine
// does not reproduce, and why.
var korthikantiOpen = func() map[string]string {
	const oneT = "the engine is slow on the 1T's 64-stage pipeline with sequence parallelism and selective recomputation (+7% before the wait for the slowest of its 512 GPUs was modelled, +12% with it; its full-recomputation row holds): what it overcharges there — the bubble of 63 stages is a tenth of its step — is not found"
	return map[string]string{"korthikanti-1t-sp-selective": oneT, "korthikanti-1t-mfu": oneT}
}()

// --- Narayanan et al. 2021 (arXiv 2104.04473) ---

// NarayananRow is a row of Narayanan et al.'s Table 1.
type NarayananRow struct {
	Params                       string
	A, H, L, TP, PP, GPUs, Batch int
	TFLOPS                       float64
}

// NarayananRows are the rows of Table 1, all ten (V 51,200, s 2048, A100
// 80 GB, full recomputation).
var NarayananRows = []NarayananRow{
	{"1.7B", 24, 2304, 24, 1, 1, 32, 512, 137},
	{"3.6B", 32, 3072, 30, 2, 1, 64, 512, 138},
	{"7.5B", 32, 4096, 36, 4, 1, 128, 512, 142},
	{"18.4B", 48, 6144, 40, 8, 1, 256, 1024, 135},
	{"39.1B", 64, 8192, 48, 8, 2, 512, 1536, 138},
	{"76.1B", 80, 10240, 60, 8, 4, 1024, 1792, 140},
	{"145.6B", 96, 12288, 80, 8, 8, 1536, 2304, 148},
	{"310.1B", 128, 16384, 96, 8, 16, 1920, 2160, 155},
	{"529.6B", 128, 20480, 105, 8, 35, 2520, 2520, 163},
	{"1008.0B", 160, 25600, 128, 8, 64, 3072, 3072, 163},
}

// Narayanan is the configuration of a Table 1 row (A100, full
// recomputation, 18 bytes a parameter, no FlashAttention and no sequence
// parallelism: 2021's Megatron-LM) for micro-batch b and v chunks a stage.
func Narayanan(row NarayananRow, b, v int) parallel.Config {
	sched := parallel.OneFOneB
	if v > 1 {
		sched = parallel.Interleaved
	}
	p := parallel.Plan{TP: row.TP, PP: row.PP, DP: row.GPUs / (row.TP * row.PP), Interleave: v, Recompute: parallel.RecomputeFull, MicroBatch: b, GlobalBatch: row.Batch,
		Schedule: sched, BytesPerParam: 18, Dtype: hw.BF16, Overlap: true}
	return parallel.Config{Model: GPT(row.L, row.H, row.A), Plan: p, Cluster: parallel.DefaultCluster(hw.MustGPU("a100-80gb"), row.GPUs)}
}

// NarayananBest is the fastest plan that fits for the row's TP, PP and
// GPUs over micro-batches 1, 2, 4, 8 and 1, 2 or 4 chunks a stage (the
// paper tuned both; its table gives neither).
func NarayananBest(row NarayananRow) (parallel.Result, int, int, error) {
	var best parallel.Result
	bb, bv := 0, 0
	for _, b := range []int{1, 2, 4, 8} {
		for _, v := range []int{1, 2, 4} {
			r, err := evaluate(Narayanan(row, b, v))
			if err != nil || !r.Memory.Fits {
				continue
			}
			if bb == 0 || r.TFLOPSPerGPU > best.TFLOPSPerGPU {
				best, bb, bv = r, b, v
			}
		}
	}
	if bb == 0 {
		return best, 0, 0, fmt.Errorf("validate: no plan fits Narayanan's %s row", row.Params)
	}
	return best, bb, bv, nil
}

func narayananRows() ([]Row, error) {
	var rows []Row
	for _, nr := range NarayananRows {
		r, b, v, err := NarayananBest(nr)
		if err != nil {
			return nil, err
		}
		cmd := fmt.Sprintf("gpuscope plan --software megatron-2021 --overlap --layers %d --hidden %d --heads %d --seq 2048 --vocab 51200 --gpu a100-80gb --gpus %d --tp %d --pp %d --interleave %d --micro-batch %d --global-batch %d",
			nr.L, nr.H, nr.A, nr.GPUs, nr.TP, nr.PP, v, b, nr.Batch)
		rw := row("narayanan-"+nr.Params, fmt.Sprintf("Narayanan et al. 2021 (arXiv 2104.04473), Table 1: %s (TP %d, PP %d, %d GPUs, batch %d)", nr.Params, nr.TP, nr.PP, nr.GPUs, nr.Batch),
			"TFLOP/s a GPU (Megatron's count)", nr.TFLOPS, r.TFLOPSPerGPU, 0.10, cmd) // issue 19's goal (they were held to 15%)
		rw.PlanField = "tflops_per_gpu"
		rw.Note = "micro-batch and chunks a stage: the engine's fastest that fits (the table gives neither); DP overlap on, as the check has always run it, though 2021's Megatron-LM all-reduced after the backward pass (megatron-2021's default)"
		rows = append(rows, rw)
	}
	return rows, nil
}

// --- Llama 3 (arXiv 2407.21783), Table 4 ---

// Llama3 is Llama 3 405B's 8,192-token plan of Table 4 on gpus H100s as
// Meta ran it (arXiv 2407.21783 §3.3.2): TP 8, PP 16, the rest DP, 2,048
// sequences a step, no recomputation, no dropout (the preset's); FSDP
// sharding gradients and optimizer state over DP, the weights kept
// (ZeRO-2); gradients accumulated and reduce-scattered in FP32 (18 bytes a
// parameter); the interleaved schedule with v = 8 — the paper gives no v,
// and 8 is the engine's fastest that fits at 16,384 GPUs, the (L + 2)
// split putting 126 layers and the embedding and output layers in 16 × 8
// chunks. SwiGLU runs fused, keeping its gate and up outputs and writing
// their product again in its backward (xformers' swiglu, Meta's library:
// Plan.FusedSwiGLU) — the paper names no kernel, so this is an
// assumption, the one under which its 8K rows run without checkpointing
// as it says; with Megatron-LM's unfused SwiGLU, which stores the
// product, the 8,192-GPU plan does not fit (llama3Rows says by how much).
func Llama3(gpus int) parallel.Config {
	m, _ := model.Preset("llama3-405b")
	return parallel.Config{Model: m, Cluster: parallel.DefaultCluster(hw.MustGPU("h100"), gpus), Plan: parallel.Plan{TP: 8, PP: 16, DP: gpus / 128, Interleave: 8, SP: true,
		ZeRO: 2, Recompute: parallel.RecomputeNone, Flash: true, MicroBatch: 1, GlobalBatch: 2048, Schedule: parallel.Interleaved, BytesPerParam: 18, Dtype: hw.BF16, Overlap: true,
		FusedSwiGLU: true}}
}

// Llama3Long is the 131,072-token row: TP 8, CP 16 (K and V
// all-gathered), PP 16, DP 8 on 16,384 H100s, 128 sequences a step (the
// table's DP 4 does not multiply to its 16,384 GPUs; README), on the
// stack of the 8K rows as Meta ran them (Llama3): ZeRO-2, 18 bytes a
// parameter, v = 8 and no recomputation — each GPU holds 8,192 tokens of
// a sequence, as at 8K, and it fits.
func Llama3Long() parallel.Config {
	c := Llama3(16384)
	c.Model.Seq = 131072
	c.Plan.CP, c.Plan.CPAlgo, c.Plan.DP, c.Plan.GlobalBatch = 16, parallel.CPAllGather, 8, 128
	return c
}

func llama3Rows() ([]Row, error) {
	const src = "Dubey et al. 2024 (Llama 3, arXiv 2407.21783), Table 4: 405B, "
	const q = "TFLOP/s a GPU (model FLOPs)"
	var rows []Row
	for _, g := range []struct {
		gpus      int
		published float64
	}{{8192, 430}, {16384, 400}} {
		c := Llama3(g.gpus)
		r, err := evaluate(c)
		if err != nil {
			return nil, err
		}
		rw := row(fmt.Sprintf("llama3-405b-8k-%d", g.gpus), fmt.Sprintf("%s8,192 tokens, %d GPUs (TP 8, PP 16, DP %d)", src, g.gpus, g.gpus/128), q, g.published, r.ModelTFLOPSPerGPU, 0.10,
			fmt.Sprintf("gpuscope plan --software current --model llama3-405b --gpus %d --tp 8 --pp 16 --interleave 8 --zero 2 --recompute none --bytes-per-param 18 --fused-swiglu --global-batch 2048", g.gpus))
		rw.PlanField = "model_tflops_per_gpu"
		// What the SwiGLU kernel decides: the same plan storing the product.
		u := c
		u.Plan.FusedSwiGLU = false
		ru, err := evaluate(u)
		if err != nil {
			return nil, err
		}
		unfused := "SwiGLU unfused, its product stored"
		if c.Plan.FusedSwiGLU {
			unfused = fmt.Sprintf("SwiGLU fused (its product written again in the backward, not stored: %s a GPU; unfused, as Megatron-LM stores it, %s, %s)",
				units.Bytes(r.Memory.Total), units.Bytes(ru.Memory.Total), map[bool]string{true: "fits", false: "does not fit"}[ru.Memory.Fits])
		}
		rw.Note = unfused
		if !r.Memory.Fits {
			m := r.Memory
			rw.Status = Open
			rw.Note = fmt.Sprintf("does not fit in the engine: %s of %s usable on stage %d, which keeps %d chunks of %d micro-batches in flight under Megatron's interleaved schedule; %s",
				units.Bytes(m.Total), units.Bytes(m.Usable), m.Stage, m.InFlight, r.MicroBatches, unfused)
		}
		rows = append(rows, rw)
	}
	c := Llama3Long()
	r, err := evaluate(c)
	if err != nil {
		return nil, err
	}
	rw := row("llama3-405b-131k", src+"131,072 tokens, 16,384 GPUs (TP 8, CP 16, PP 16)", q, 380, r.ModelTFLOPSPerGPU, 0.10,
		"gpuscope plan --software current --model llama3-405b --seq 131072 --gpus 16384 --tp 8 --cp 16 --cp-algo allgather --pp 16 --dp 8 --interleave 8 --zero 2 --recompute none --bytes-per-param 18 --fused-swiglu --global-batch 128")
	rw.PlanField = "model_tflops_per_gpu"
	rw.Note = "DP 8, not the table's 4 (which does not multiply to 16,384 GPUs); the 8K rows' stack as Meta ran it (ZeRO-2, FP32 gradients, v = 8, no recomputation, SwiGLU fused: it fits, each GPU holding 8,192 tokens of a sequence)"
	return append(rows, rw), nil
}

// --- DeepSeek-V3 (arXiv 2412.19437) ---

// DeepSeekV3 is DeepSeek-V3's pre-training as it ran on 2,048 H800s: PP
// 16, EP 64, ZeRO-1, no TP, FP8 block-scaled products, node-limited
// routing (4 nodes), FP8 dispatch, DualPipe's pairing on 20 SMs, the
// norms, latent attention's up projections and the SwiGLUs recomputed,
// the products' inputs kept in FP8, 15,360 sequences of 4,096 a step;
// with the given pipeline schedule.
func DeepSeekV3(s parallel.Schedule) parallel.Config {
	m, _ := model.Preset("deepseek-v3")
	p := parallel.Plan{TP: 1, PP: 16, DP: 128, EP: 64, ZeRO: 1, Interleave: 1, MicroBatch: 1, GlobalBatch: 15360,
		Schedule: s, BytesPerParam: 16, Dtype: hw.FP8, Recompute: parallel.RecomputeSelective, Flash: true, Overlap: true,
		NodeLimit: 4, DispatchDtype: hw.FP8, EPOverlap: true, CommSMs: 20, BlockScaled: true,
		RecomputeModules: parallel.ModuleLayerNorm | parallel.ModuleMLAUpProj | parallel.ModuleMoEAct, FP8Cache: true}
	return parallel.Config{Model: m, Plan: p, Cluster: parallel.DefaultCluster(hw.MustGPU("h800"), 2048)}
}

// DeepSeekV3TokensPerS is the rate Table 1 implies: 14.8T tokens of
// pre-training in 2.664M H800 GPU-hours on 2,048 GPUs.
const DeepSeekV3TokensPerS = 14.8e12 / (2.664e6 * 3600 / 2048)

// DeepSeekV3Profile is DeepSeek's published profile of one forward and
// one backward chunk of 4 MoE layers run paired, as DualPipe pairs them
// (github.com/deepseek-ai/profile-data, train.json: PyTorch's profiler on
// an H800, EP 64, TP 1, 4,096 tokens, "an absolutely balanced MoE
// routing", no pipeline sends), seconds read from its kernels: Pair from
// its first kernel to its last (F&B); F, B and W the kernel time launched
// under its forward annotations (attn(F), mlp(F)), its whole backward's
// (attn(B), mlp(B) and the weight gradients) and the weight gradients'
// alone (attn(W), mlp(W)).
var DeepSeekV3Profile = struct{ Pair, F, B, W float64 }{Pair: 0.129012, F: 0.034971, B: 0.091490, W: 0.035067}

// DeepSeekV3ProfileStep is the step DeepSeek's own profile implies under
// DualPipe, seconds: each rank's 120 micro-batches (15,360 sequences over
// DP 128) a paired forward and backward chunk each, and DualPipe's bubble
// (PP/2 − 1)(F&B + B − 3W) at PP 16 — nothing else (no gradient
// synchronisation, optimizer, pipeline sends or first and last stages'
// extra layers, each of which would only lengthen it).
func DeepSeekV3ProfileStep() float64 {
	const micro, pp = 15360 / 128, 16
	d := DeepSeekV3Profile
	return micro*d.Pair + parallel.DualPipeBubble(pp, d.Pair, d.B, d.W)
}

func deepSeekRows() ([]Row, error) {
	const src = "DeepSeek-AI 2024 (DeepSeek-V3, arXiv 2412.19437), Table 1: 14.8T tokens in 2.664M H800 GPU-hours on 2,048 GPUs"
	const cmd = "gpuscope plan --model deepseek-v3 --gpu h800 --gpus 2048 --pp 16 --dp 128 --ep 64 --zero 1 --dtype fp8 --block-scaled --fp8-cache --recompute selective --recompute-modules layernorm,mla_up_proj,moe_act --node-limit 4 --dispatch-dtype fp8 --ep-overlap --global-batch 15360"
	var rows []Row
	for _, s := range []parallel.Schedule{parallel.DualPipe, parallel.OneFOneB} {
		r, err := evaluate(DeepSeekV3(s))
		if err != nil {
			return nil, err
		}
		rw := row("deepseek-v3-"+string(s), src, "tokens/s on the cluster", DeepSeekV3TokensPerS, r.TokensPerS, 0.15, cmd+" --schedule "+string(s))
		rw.PlanField = "tokens_per_s"
		if s == parallel.DualPipe {
			// The chunk the engine times, against DeepSeek's profile of it.
			pair := row("deepseek-v3-chunk-pair", "DeepSeek-AI 2025, profile-data (github.com/deepseek-ai/profile-data, train.json): a forward and a backward chunk of 4 MoE layers paired on one H800 (EP 64, 4,096 tokens, balanced routing), first kernel to last",
				"s, F&B of a stage of 4 MoE layers", DeepSeekV3Profile.Pair, r.Metrics().TimePerStage[1].ForwardBackward, 0.10, cmd+" --schedule "+string(s))
			pair.PlanField = "time_per_stage.1.f_and_b_s"
			pair.Note = fmt.Sprintf("stage 1: 4 MoE layers; its forward %s (profile %s), whole backward %s (%s), of it the weight gradients %s (%s)",
				units.Duration(r.StageForward[1]), units.Duration(DeepSeekV3Profile.F), units.Duration(r.StageBackward[1]), units.Duration(DeepSeekV3Profile.B),
				units.Duration(r.StageW[1]), units.Duration(DeepSeekV3Profile.W))
			rows = append(rows, pair)
			ps := DeepSeekV3ProfileStep()
			rw.Status = Open
			rw.Note = fmt.Sprintf("as it ran (DualPipe): it fits (%s a GPU), its chunks as DeepSeek's profile measures them (deepseek-v3-chunk-pair), but faster than the GPU-hours: DeepSeek's own profile under DualPipe's bubble gives a %s step, %.2fM tokens/s (%+.0f%%), so the GPU-hours hold more than steady training; what, DeepSeek does not say (README's published checks)",
				units.Bytes(r.Memory.Total), units.Duration(ps), 15360*4096/ps/1e6, 100*(15360*4096/ps/DeepSeekV3TokensPerS-1))
		} else {
			// Not held: not how it ran, so its nearness to the row is
			// no evidence.
			rw.Status = Open
			rw.Note = "the pipeline run as 1F1B, not as DeepSeek ran it (DualPipe): 1F1B's bubble and last stage slow it to near the row, which proves nothing"
		}
		rows = append(rows, rw)
	}
	return rows, nil
}

// --- nccl-tests (PERFORMANCE.md and its maintainers) ---

func ncclRows() ([]Row, error) {
	nv, _ := hw.LinkByID("nvlink4")
	ib, _ := hw.LinkByID("ib-ndr")
	var rows []Row
	for _, c := range []struct {
		algo      collective.Algo
		published float64
	}{{collective.Ring, 370}, {collective.NVLS, 480}} {
		f, err := collective.ClosedForm(collective.AllReduce, c.algo, 8, 8, 1e9, nv, ib)
		if err != nil {
			return nil, err
		}
		busbw := 1e9 / f.Seconds * collective.BusFactor(collective.AllReduce, 8) / 1e9
		rows = append(rows, row("nccl-allreduce-"+string(c.algo), "nccl-tests (PERFORMANCE.md; its maintainers): 8× H100 over NVLink 4, all-reduce, hundreds of MB, "+string(c.algo),
			"bus bandwidth, GB/s", c.published, busbw, 0.03,
			fmt.Sprintf("all-reduce of 1 GB on 8 H100s, one node (NVLink 4), %s: collective.ClosedForm", c.algo)))
	}
	return rows, nil
}

// --- GEMMs ---

// DeepGEMMShapes are DeepGEMM's measured block-scaled FP8 products on an
// H800 (README of its first release): groups, M, N, K and TFLOP/s.
var DeepGEMMShapes = []struct {
	Groups, M, N, K int
	Measured        float64
}{
	{1, 4096, 7168, 16384, 1358}, {1, 4096, 4096, 7168, 1304}, {1, 4096, 7168, 2048, 1025},
	{1, 4096, 2112, 7168, 1058}, {1, 4096, 24576, 1536, 990},
	{4, 8192, 4096, 7168, 1297}, {4, 8192, 7168, 2048, 1099},
}

func gemmRows() ([]Row, error) {
	r, err := kernel.GEMM(kernel.GEMMConfig{M: 8192, N: 8192, K: 8192, Dtype: hw.BF16, GPU: hw.MustGPU("h200"), Kernel: kernel.TensorTiled})
	if err != nil {
		return nil, err
	}
	rows := []Row{row("gemm-h200-8192", "measured on one H200 through PyTorch (shared/reference/published-figures.md): 8192³ BF16",
		"TFLOP/s", 788, r.Metrics().TFLOPS, 0.10, "gpuscope gemm --m 8192 --n 8192 --k 8192 --dtype bf16 --gpu h200 --kernel tensor-tiled")}
	rows[0].PlanField = "tflops"
	h800 := hw.MustGPU("h800")
	for _, c := range DeepGEMMShapes {
		r, err := kernel.GEMM(kernel.GEMMConfig{M: c.M, N: c.N, K: c.K, Dtype: hw.FP8, GPU: h800, Kernel: kernel.TensorTiled, BlockScaled: true})
		if err != nil {
			return nil, err
		}
		rows = append(rows, row(fmt.Sprintf("deepgemm-%dx%dx%dx%d", c.Groups, c.M, c.N, c.K),
			fmt.Sprintf("DeepGEMM (github.com/deepseek-ai/DeepGEMM), README of its first release: H800, %d group(s), M %d N %d K %d", c.Groups, c.M, c.N, c.K),
			"TFLOP/s, block-scaled FP8", c.Measured, r.FLOPs/r.TimeS/1e12, 0.10,
			fmt.Sprintf("block-scaled FP8 tensor-tiled GEMM %d×%d×%d on an H800: kernel.GEMM", c.M, c.N, c.K)))
	}
	return rows, nil
}

// --- parameter counts of the presets ---

// PresetSizes are the presets' published parameter counts and the
// tolerance each is held to.
var PresetSizes = []struct {
	ID        string
	Published float64
	Tolerance float64
	Source    string
}{
	{"gpt3-175b", 175e9, 0.01, "Brown et al. 2020 (GPT-3, arXiv 2005.14165), Table 2.1"},
	{"llama2-70b", 68.98e9, 0.005, "Llama 2 70B's released checkpoint: 68,976,648,192"},
	{"llama3-405b", 405.85e9, 0.005, "Llama 3 405B's released checkpoint"},
	{"megatron-1t", 1008e9, 0.01, "Narayanan et al. 2021 (arXiv 2104.04473), Table 1: 1.0T"},
	{"seed-100b", 100e9, 0.02, "the course's 100B seed model"},
}

func paramRows() ([]Row, error) {
	var rows []Row
	for _, p := range PresetSizes {
		m, ok := model.Preset(p.ID)
		if !ok {
			return nil, fmt.Errorf("validate: no preset %s", p.ID)
		}
		rw := row("params-"+p.ID, p.Source, "parameters", p.Published, m.Params(), p.Tolerance, "gpuscope plan --model "+p.ID)
		rw.PlanField = "params"
		rows = append(rows, rw)
	}
	return rows, nil
}

// evaluate is parallel.Evaluate of a published run: on a real cluster,
// whose GPUs' speeds spread as measured in the field
// (parallel.FieldGPUVariation), the step waiting for the slowest; the
// rows' command lines say the same (gpuscope plan's --gpu-variation
// default).
func evaluate(c parallel.Config) (parallel.Result, error) {
	c.Cluster.GPUVariation = parallel.FieldGPUVariation
	return parallel.Evaluate(c)
}
