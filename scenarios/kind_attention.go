package scenarios

import (
	"math"
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// AttentionRun is a flash-attention lesson step: both implementations for
// the step's shape, and their HBM traffic over sequence lengths. It has no
// time line.
type AttentionRun struct {
	Standard, Flash kernel.AttentionResult
	Sweep           []AttentionPoint
}

// AttentionPoint is one sequence length of the sweep.
type AttentionPoint struct {
	Seq              int     `json:"seq"`
	StandardHBMBytes float64 `json:"standard_hbm_bytes"`
	FlashHBMBytes    float64 `json:"flash_hbm_bytes"`
	// FlashKVReads is how many times FlashAttention reads K and V from
	// HBM: once while they fit in L2, else once per wave of blocks.
	FlashKVReads int `json:"flash_kv_hbm_reads"`
}

// End is the sweep's length (see SweepTime); steps without it stay at 0.
func (r *AttentionRun) End() sim.Time { return SweepTime }

// Mark knows start and end.
func (r *AttentionRun) Mark(name string) (sim.Time, bool) { return startEnd(name, SweepTime) }

// SweepSeq is the sequence length a sweep shows at time t: 256 to 65,536,
// evenly on a log scale.
func SweepSeq(t sim.Time) int {
	return int(math.Round(math.Pow(2, 8+8*float64(t)/float64(SweepTime))))
}

// AttentionLesson is the flash-attention lesson's engine part. MaxAbsDiff
// is the largest difference between FlashAttention's tiled online softmax
// and the direct formula on a small random case, computed once.
type AttentionLesson struct {
	MaxAbsDiff float64
}

// AttentionLessonMetrics are a step's numbers: FlashAttention's under
// gpuscope attention's names, both implementations side by side, the
// speed-up, the sweep, and the check that both give the same output.
type AttentionLessonMetrics struct {
	kernel.AttentionMetrics
	Standard   kernel.AttentionMetrics `json:"standard"`
	Flash      kernel.AttentionMetrics `json:"flash"`
	Speedup    float64                 `json:"speedup"`
	Sweep      []AttentionPoint        `json:"sweep"`
	MaxAbsDiff float64                 `json:"max_abs_difference"`
}

func attentionConfig(c Config, impl kernel.AttentionImpl, seq int) (kernel.AttentionConfig, error) {
	g, _ := hw.GPUByID(c["gpu"])
	return kernel.AttentionConfig{
		Batch: int(c.Int("batch")), Heads: int(c.Int("heads")), Seq: seq, HeadDim: int(c.Int("head_dim")),
		Dtype: hw.BF16, GPU: g, Impl: impl,
	}, nil
}

func attentionRun(c Config) (*AttentionRun, error) {
	r := &AttentionRun{}
	for _, impl := range []kernel.AttentionImpl{kernel.StandardAttention, kernel.FlashAttention} {
		ac, _ := attentionConfig(c, impl, int(c.Int("seq")))
		res, err := kernel.Attention(ac)
		if err != nil {
			return nil, err
		}
		if impl == kernel.StandardAttention {
			r.Standard = res
		} else {
			r.Flash = res
		}
	}
	for seq := 256; seq <= 65536; seq *= 2 {
		p := AttentionPoint{Seq: seq}
		for _, impl := range []kernel.AttentionImpl{kernel.StandardAttention, kernel.FlashAttention} {
			ac, _ := attentionConfig(c, impl, seq)
			res, err := kernel.Attention(ac)
			if err != nil {
				return nil, err
			}
			if impl == kernel.StandardAttention {
				p.StandardHBMBytes = res.HBMBytes
			} else {
				p.FlashHBMBytes, p.FlashKVReads = res.HBMBytes, res.KVReads
			}
		}
		r.Sweep = append(r.Sweep, p)
	}
	return r, nil
}

var prepareAttention = prepareWith(func() lessonEngine {
	return &AttentionLesson{MaxAbsDiff: kernel.AttentionTilingError(11, 64, 64, 16, 16, 16)}
}, func(c Config) (Run, error) { return attentionRun(c) })

// Attention returns the flash-attention part of a lesson; ok is false
// for a lesson of another engine.
func (les *Lesson) Attention() (*AttentionLesson, bool) {
	a, ok := les.engine.(*AttentionLesson)
	return a, ok
}

func (al *AttentionLesson) metrics(les *Lesson, step int) any {
	r := les.Steps[step-1].Run.(*AttentionRun)
	m := AttentionLessonMetrics{
		AttentionMetrics: r.Flash.Metrics(), Standard: r.Standard.Metrics(), Flash: r.Flash.Metrics(),
		Sweep: r.Sweep, MaxAbsDiff: al.MaxAbsDiff,
	}
	if r.Flash.TimeS > 0 {
		m.Speedup = r.Standard.TimeS / r.Flash.TimeS
	}
	return m
}

func (al *AttentionLesson) narration(les *Lesson, _ int, lang string) []string {
	r, err := attentionRun(les.Config)
	if err != nil {
		return nil
	}
	gpt3 := les.Config.Clone()
	gpt3["batch"], gpt3["heads"], gpt3["seq"] = "1024", "96", "2048"
	g3, _ := attentionConfig(gpt3, kernel.StandardAttention, 2048)
	g3r, _ := kernel.Attention(g3)
	return []string{
		"seq", count(les.Config.IntOf("seq")),
		"score_bytes", units.Bytes(r.Standard.ScoreBytes),
		"gpt3_score_bytes", units.Bytes(g3r.ScoreBytes),
		"standard_bytes", units.Bytes(r.Standard.HBMBytes),
		"flash_bytes", units.Bytes(r.Flash.HBMBytes),
		"speedup", strconv.FormatFloat(r.Standard.TimeS/r.Flash.TimeS, 'f', 1, 64),
		"max_diff", scientific(al.MaxAbsDiff, 2),
	}
}

func (al *AttentionLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	r := les.Steps[step-1].Run.(*AttentionRun)
	secs := localDuration(lang)
	row := func(key, a, b string) TableRow {
		return TableRow{Key: key, Label: t("metric." + key), Cells: []string{a, b}, Source: t("source.attention." + key)}
	}
	s, f := r.Standard, r.Flash
	bound := func(x kernel.AttentionResult) string { return t("bound." + x.Metrics().Bound) }
	return Table{
		Columns:    []string{t("ui.metric"), t("impl.standard"), t("impl.flash")},
		ColumnKeys: []string{"standard", "flash"},
		Current:    "flash",
		Rows: []TableRow{
			row("hbm_bytes", units.Bytes(s.HBMBytes), units.Bytes(f.HBMBytes)),
			row("score_bytes", units.Bytes(s.ScoreBytes), t("attention.never_written")),
			row("time_s", secs(s.TimeS), secs(f.TimeS)),
			row("bound", bound(s), bound(f)),
			row("max_abs_difference", "—", strconv.FormatFloat(al.MaxAbsDiff, 'e', 1, 64)),
		},
	}
}

func (al *AttentionLesson) live(*Lesson, int, sim.Time, string) string { return "" }
