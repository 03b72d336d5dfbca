package scenarios

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/numfmt"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// The number-formats lesson's toy training run: fixed, so every step and
// every reader sees the same one.
const (
	trainingSteps = 200
	trainingSpike = 100
	// TrainingSpike is the step whose outlier's gradient overflows FP16.
	TrainingSpike = trainingSpike
	trainingSeed  = 1
	// TrainingStepTime is one training step on the lesson's time line.
	TrainingStepTime = sim.Millisecond
	// gpt3Params is the seed's 175B model, whose weights are 700 GB in
	// FP32 and 350 GB in BF16.
	gpt3Params = 175e9
	// GPT3Params is gpt3Params, for the picture.
	GPT3Params = gpt3Params
)

// TrainingVariant is one line of the toy run.
type TrainingVariant struct {
	ID          string // "fp16", "bf16", "fp16-scaled"
	Format      numfmt.Format
	LossScaling bool
	Steps       []numfmt.TrainStep
}

// TrainingRun is the number-formats lesson's time line: the three variants
// of the toy training run, one training step per millisecond.
type TrainingRun struct {
	Variants []TrainingVariant
}

// End is the last step's time.
func (r *TrainingRun) End() sim.Time { return sim.Time(trainingSteps-1) * TrainingStepTime }

// Mark knows start, end and round:K (training step K).
func (r *TrainingRun) Mark(name string) (sim.Time, bool) {
	switch name {
	case "start":
		return 0, true
	case "end":
		return r.End(), true
	}
	if m, ok := ParseMark(name); ok && m.Kind == MarkRound && m.Round < trainingSteps {
		return sim.Time(m.Round) * TrainingStepTime, true
	}
	return 0, false
}

// StepAt is the training step shown at time t.
func (r *TrainingRun) StepAt(t sim.Time) int {
	return min(max(int(t/TrainingStepTime), 0), trainingSteps-1)
}

// NumfmtLesson is what the number-formats lesson adds to its steps.
type NumfmtLesson struct {
	Run *TrainingRun
}

// Numfmt returns the number-formats part of a lesson; ok is false for a
// lesson of another engine.
func (les *Lesson) Numfmt() (*NumfmtLesson, bool) {
	n, ok := les.engine.(*NumfmtLesson)
	return n, ok
}

// TrainingSummary is how each variant of the toy run ended.
type TrainingSummary struct {
	Variant    string        `json:"variant"`
	DiedAtStep int           `json:"died_at_step"` // first NaN loss, -1 if none
	Skipped    int           `json:"skipped_steps"`
	FinalLoss  numfmt.Number `json:"final_loss"`
	FinalW     numfmt.Number `json:"final_w"`
}

// NumfmtMetrics are a step's numbers: the chosen value in the chosen
// format under gpuscope numfmt's names, the value in every format, the
// training run's outcome, and the 175B model's weights in each format.
type NumfmtMetrics struct {
	numfmt.Report
	Formats  []numfmt.Report   `json:"formats"`
	Training []TrainingSummary `json:"training"`
	// WeightsBytes is 175B parameters × the format's width, by format id.
	WeightsBytes map[string]float64 `json:"weights_175b_bytes"`
}

func prepareNumfmt(s *Scenario, cfg Config) (*Lesson, error) {
	run := &TrainingRun{}
	for _, v := range []TrainingVariant{
		{ID: "fp16", Format: numfmt.FP16},
		{ID: "bf16", Format: numfmt.BF16},
		{ID: "fp16-scaled", Format: numfmt.FP16, LossScaling: true},
	} {
		v.Steps = numfmt.Train(numfmt.TrainConfig{Format: v.Format, LossScaling: v.LossScaling, Steps: trainingSteps, SpikeStep: trainingSpike, Seed: trainingSeed})
		run.Variants = append(run.Variants, v)
	}
	les := &Lesson{Scenario: s, Config: cfg.Clone(), engine: &NumfmtLesson{Run: run}}
	if err := les.stepWindows(func(Config) (Run, error) { return run, nil }); err != nil {
		return nil, err
	}
	return les, nil
}

// chosen is a step's value and format.
func chosen(les *Lesson, step int) (float64, numfmt.Format) {
	c := les.Steps[step-1].Config
	f, ok := numfmt.ByID(c["format"])
	if !ok {
		f = numfmt.FP16
	}
	return c.Float("value"), f
}

func (nl *NumfmtLesson) summaries() []TrainingSummary {
	var out []TrainingSummary
	for _, v := range nl.Run.Variants {
		s := TrainingSummary{Variant: v.ID, DiedAtStep: -1}
		for _, st := range v.Steps {
			if s.DiedAtStep < 0 && math.IsNaN(st.Loss) {
				s.DiedAtStep = st.Step
			}
			if st.Skipped {
				s.Skipped++
			}
		}
		last := v.Steps[len(v.Steps)-1]
		s.FinalLoss, s.FinalW = numfmt.Number(last.Loss), numfmt.Number(last.W)
		out = append(out, s)
	}
	return out
}

func (nl *NumfmtLesson) metrics(les *Lesson, step int) any {
	x, f := chosen(les, step)
	m := NumfmtMetrics{Report: f.Describe(x), Training: nl.summaries(), WeightsBytes: map[string]float64{}}
	for _, g := range numfmt.Formats {
		m.Formats = append(m.Formats, g.Describe(x))
		m.WeightsBytes[g.ID] = gpt3Params * float64(g.Bits()) / 8
	}
	return m
}

// narration quotes the step's own value (a step that sets value=1.5
// says 1.5, not the lesson's default).
func (nl *NumfmtLesson) narration(les *Lesson, step int, _ string) []string {
	x, _ := chosen(les, step)
	return nl.narrationOf(les, x)
}

func (nl *NumfmtLesson) narrationOf(les *Lesson, x float64) []string {
	died := strconv.Itoa(trainingSpike)
	skipped := "0"
	for _, s := range nl.summaries() {
		switch s.Variant {
		case "fp16":
			died = strconv.Itoa(s.DiedAtStep)
		case "fp16-scaled":
			skipped = strconv.Itoa(s.Skipped)
		}
	}
	num := plainNumber
	return []string{
		"value", num(x),
		"fp16_stored", num(numfmt.FP16.Round(x)),
		"bf16_stored", num(numfmt.BF16.Round(x)),
		"fp16_max", num(numfmt.FP16.Max()),
		"bf16_max", scientific(numfmt.BF16.Max(), 3),
		"spike_step", strconv.Itoa(trainingSpike),
		"died_at", died,
		"skipped", skipped,
		"w175_fp32", units.Bytes(gpt3Params * 4),
		"w175_bf16", units.Bytes(gpt3Params * 2),
	}
}

// table is the chosen value in every format, the formats' ranges and the
// 175B model's weights in each.
func (nl *NumfmtLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	x, f := chosen(les, step)
	tb := Table{Columns: []string{t("ui.metric")}, Current: f.ID}
	rows := map[string][]string{}
	keys := []string{"stored", "relative_error", "max", "min_normal", "epsilon", "weights_175b_bytes"}
	for _, g := range numfmt.Formats {
		tb.Columns = append(tb.Columns, g.Name)
		tb.ColumnKeys = append(tb.ColumnKeys, g.ID)
		r := g.Describe(x)
		rows["stored"] = append(rows["stored"], tableNumber(float64(r.Stored)))
		rows["relative_error"] = append(rows["relative_error"], tableNumber(float64(r.RelativeError)))
		rows["max"] = append(rows["max"], tableNumber(float64(r.Max)))
		rows["min_normal"] = append(rows["min_normal"], tableNumber(float64(r.MinNormal)))
		rows["epsilon"] = append(rows["epsilon"], tableNumber(float64(r.Epsilon)))
		rows["weights_175b_bytes"] = append(rows["weights_175b_bytes"], units.Bytes(gpt3Params*float64(g.Bits())/8))
	}
	for _, k := range keys {
		tb.Rows = append(tb.Rows, TableRow{Key: k, Label: t("metric." + k), Cells: rows[k], Source: t("source.numfmt." + k)})
	}
	return tb
}

// NumText writes a number for the table: Inf and NaN by name, others with
// up to 6 significant digits.
func NumText(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "−Inf"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// live is the toy run's loss in each variant at the playhead.
func (nl *NumfmtLesson) live(les *Lesson, step int, t sim.Time, lang string) string {
	k := nl.Run.StepAt(t)
	loss := func(i int) string { return NumText(nl.Run.Variants[i].Steps[k].Loss) }
	return i18n.T(lang, "ui.live_training", "step", strconv.Itoa(k), "fp16", loss(0), "bf16", loss(1), "scaled", loss(2))
}
