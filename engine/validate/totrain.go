package validate

import (
	"fmt"

	"github.com/gpuscope/gpuscope/engine/budget"
	"github.com/gpuscope/gpuscope/engine/parallel"
	"github.com/gpuscope/gpuscope/engine/units"
)

// --- Whole training runs: GPU-hours (issue 42) ---
//
// A published run's GPU-hours against gpuscope plan --tokens: the plan
// the table already holds for the run (its step rows'), its tokens, and
// the run around the step as engine/budget builds it with its defaults —
// Llama 3's failure rate, a minute's checkpoint at Daly's interval, ten
// minutes a restart. Each row is held to 15%: the step rows are held to
// 10%, and a whole run adds what the plan's step does not hold (the
// failures assumed, and the stages a run has beside its main one:
// smaller batches at the start, long-context training, a published
// total that may count more). The Note gives the run without failures
// (ideal_gpu_hours) beside it, and what the published figure counts.

// RunGPUHoursTolerance is the tolerance of the GPU-hours rows.
const RunGPUHoursTolerance = 0.15

// trainingRun is gpuscope plan --tokens' run of tokens on c's plan, as
// the rows' command lines run it (evaluate: the GPUs' speeds spread as
// in the field).
func trainingRun(c parallel.Config, tokens float64) (parallel.Result, budget.Run, error) {
	r, err := evaluate(c)
	if err != nil {
		return r, budget.Run{}, err
	}
	run, err := budget.Estimate(budget.FromPlan(r, tokens))
	return r, run, err
}

// runRow is a GPU-hours row: published, the run, its plan's command line
// with --tokens, and what the published figure counts.
func runRow(name, source string, published float64, run budget.Run, cmd, counts string) Row {
	rw := row(name, source, "GPU-hours, the whole run", published, run.GPUHours, RunGPUHoursTolerance, cmd)
	rw.PlanField = "time_to_train.gpu_hours"
	rw.Note = fmt.Sprintf("%s; the engine: %s steps of %s s, %.1f days without failures (%s GPU-hours, %+.1f%%), goodput %.3f at Llama 3's failure rate (assumed: a failure every %s on %s GPUs), %.1f days",
		counts, units.Number(run.Steps), units.Number(run.StepS), run.IdealDays, units.Number(run.IdealGPUHours), 100*(run.IdealGPUHours-published)/published,
		run.Goodput, units.Duration(run.ClusterMTBFS), units.Count(int64(run.GPUs)), run.Days)
	return rw
}

func trainingRunRows() ([]Row, error) {
	var rows []Row

	// Llama 3 405B: 15.6T tokens (Dubey et al. 2024, arXiv 2407.21783,
	// §3.1 and §3.4) on its 8K plan of 16,384 H100s (Llama3). The Llama
	// 3.1 model card gives 30.84M H100-80GB GPU-hours for the 405B, "the
	// total GPU time required for training each model", without saying
	// which stages: the paper's pre-training has, beside the 8K stage the
	// plan runs, its first 2.87T tokens at smaller batches (4M, then 8M
	// tokens a step), about 800B tokens of long-context training up to
	// 128K (Table 4: 380 TFLOP/s a GPU against 400 at 8K) and annealing;
	// post-training ran on production infrastructure too.
	l3r, l3, err := trainingRun(Llama3(16384), 15.6e12)
	if err != nil {
		return nil, err
	}
	l3Row := runRow("llama3-405b-gpu-hours",
		"Llama 3.1 model card (github.com/meta-llama/llama-models, models/llama3_1/MODEL_CARD.md): 30.84M H100-80GB GPU-hours to train Llama 3.1 405B; Dubey et al. 2024 (Llama 3, arXiv 2407.21783) §3.4: 15.6T tokens of pre-training on up to 16,384 H100s",
		30.84e6, l3,
		"gpuscope plan --software current --model llama3-405b --gpus 16384 --tp 8 --pp 16 --interleave 8 --zero 2 --recompute none --bytes-per-param 18 --fused-swiglu --global-batch 2048 --tokens 15.6e12",
		fmt.Sprintf("the card's total does not say which stages it counts; all 15.6T tokens run here at the 8K plan on 16,384 GPUs (llama3-405b-8k-16384's step: %s TFLOP/s a GPU against Table 4's 400, %+.1f%% longer), not the paper's smaller first batches, long-context stage (≈ 800B tokens at 380 TFLOP/s a GPU) or annealing, and no post-training",
			units.Number(l3r.ModelTFLOPSPerGPU), 100*(400/l3r.ModelTFLOPSPerGPU-1)))
	// Open: what takes it outside its tolerance is the failures the
	// engine assumes, not its step (Dubey et al. 2024, §3.3.4: "higher
	// than 90% effective training time" over a 54-day snapshot).
	l3Row.Status = Open
	l3Row.Note = fmt.Sprintf("the failures the engine assumes take it out (without them %+.1f%%, below): Llama 3's own failure rate with the fault lesson's minute a checkpoint and ten minutes a restart keeps %.1f%% of the wall clock, where Meta reports more than 90%% effective training time (§3.3.4; at 90%%, %s GPU-hours, %+.1f%%) — its checkpoint and restart costs are not published; %s",
		100*(l3.IdealGPUHours/30.84e6-1), 100*l3.Goodput, units.Number(l3.IdealGPUHours/0.9), 100*(l3.IdealGPUHours/0.9/30.84e6-1), l3Row.Note)
	rows = append(rows, l3Row)

	// DeepSeek-V3: 14.8T tokens in 2,664K H800 GPU-hours of
	// pre-training (DeepSeek-AI 2024, arXiv 2412.19437, Table 1 and
	// §1: "180K H800 GPU hours" a trillion tokens, "3.7 days on our
	// cluster with 2048 H800 GPUs"), on its plan as it ran (DualPipe).
	ds, dsRun, err := trainingRun(DeepSeekV3(parallel.DualPipe), 14.8e12)
	if err != nil {
		return nil, err
	}
	dsRow := runRow("deepseek-v3-gpu-hours",
		"DeepSeek-AI 2024 (DeepSeek-V3, arXiv 2412.19437), Table 1 and §1: pre-training on 14.8T tokens in 2,664K H800 GPU-hours (180K a trillion tokens) on 2,048 H800s",
		2.664e6, dsRun,
		"gpuscope plan --model deepseek-v3 --gpu h800 --gpus 2048 --pp 16 --dp 128 --ep 64 --zero 1 --dtype fp8 --block-scaled --fp8-cache --recompute selective --recompute-modules layernorm,mla_up_proj,moe_act --node-limit 4 --dispatch-dtype fp8 --ep-overlap --global-batch 15360 --schedule dualpipe --tokens 14.8e12",
		"pre-training alone (the paper's 2.788M adds context extension and post-training); DeepSeek gives it as a rate, 180K GPU-hours a trillion tokens, and reports no failures or restarts")
	// Open for the reason its step's row is: the engine's steady rate is
	// deepseek-v3-dualpipe's, faster than the GPU-hours imply and slower
	// than DeepSeek's own profile, so nearness here rests on the failures
	// the engine assumes, which DeepSeek does not report.
	dsRow.Status = Open
	dsRow.Note = fmt.Sprintf("its steady rate is deepseek-v3-dualpipe's (%.3gM tokens/s, open: faster than the GPU-hours imply, slower than DeepSeek's own profile), and what brings the whole run near the figure is the failure model assumed for a cluster that reported none, so its nearness is no evidence; %s",
		ds.TokensPerS/1e6, dsRow.Note)
	rows = append(rows, dsRow)

	// BLOOM-176B: 366B tokens (BigScience 2022, arXiv 2211.05100 §3.5)
	// on its plan of 384 A100s (the bloom-176b-384-a100 row's); 1,082,990
	// A100 GPU-hours in Luccioni et al. 2022 (arXiv 2211.02001), Table 1:
	// 118 days of the final training.
	bs := bloom()
	chosen, br, err := bs.run.best()
	if err != nil {
		return nil, err
	}
	bRun, err := budget.Estimate(budget.FromPlan(br, 366e9))
	if err != nil {
		return nil, err
	}
	// Luccioni et al.'s 433,196 kWh is the GPU-hours × the A100's 400 W
	// TDP (1,082,990 × 0.4 kW): their GPUs' "dynamic" energy, counted at
	// TDP. The engine's, counted the same way and its own way.
	energy := fmt.Sprintf("energy: Luccioni et al.'s 433 MWh is their GPU-hours × the A100's 400 W TDP; the engine's GPU-hours × 400 W give %s MWh, its own estimate of the GPUs %s MWh (busy %s of a step) and with the nodes and PUE %g %s MWh",
		units.Number(bRun.GPUHours*400/1e6), units.Number(bRun.GPUEnergyMWh), units.Percent(bRun.Busy), bRun.PUE, units.Number(bRun.EnergyMWh))
	rows = append(rows, runRow("bloom-176b-gpu-hours",
		"Luccioni et al. 2022 (Estimating the Carbon Footprint of BLOOM, arXiv 2211.02001), Table 1: 1,082,990 A100 GPU-hours for BLOOM-176B's final training (118 days on 384 A100 80GB); BigScience 2022 (BLOOM, arXiv 2211.05100): 366B tokens",
		1082990, bRun, chosen.command()+" --tokens 366e9",
		fmt.Sprintf("the 118 days on 384 GPUs count everything the final training took; the plan runs every step at the full batch of 2,048 (the run ramped up from 192 over its first 9.8M sequences, 20B tokens) at the bloom-176b-384-a100 row's step (%s s against the logged 104.7, %+.1f%%); %s",
			units.Number(br.Time.Step), 100*(br.Time.Step/104.7-1), energy)))
	return rows, nil
}
