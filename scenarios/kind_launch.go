package scenarios

import (
	"strconv"

	"github.com/gpuscope/gpuscope/engine/hw"
	"github.com/gpuscope/gpuscope/engine/kernel"
	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/engine/units"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// WaveTime is one wave of blocks on the simt-launch lesson's time line.
const WaveTime = sim.Millisecond

// LaunchRun is a simt-launch lesson step: how the grid lands on the SMs,
// wave after wave (one wave a millisecond on the time line), and a branch
// inside one warp.
type LaunchRun struct {
	Launch     kernel.Launch
	Divergence kernel.Divergence
}

// End is when the last wave finishes.
func (r *LaunchRun) End() sim.Time { return sim.Time(r.Launch.Waves) * WaveTime }

// Mark knows start, end and round:K (the start of wave K).
func (r *LaunchRun) Mark(name string) (sim.Time, bool) {
	switch name {
	case "start":
		return 0, true
	case "end":
		return r.End(), true
	}
	if m, ok := ParseMark(name); ok && m.Kind == MarkRound && m.Round <= r.Launch.Waves {
		return sim.Time(m.Round-1) * WaveTime, true
	}
	return 0, false
}

// WaveAt is the 1-based wave running at time t (Waves+1 once all are done).
func (r *LaunchRun) WaveAt(t sim.Time) int { return int(t/WaveTime) + 1 }

// LaunchLesson is the simt-launch lesson's engine part.
type LaunchLesson struct{}

// LaunchMetrics are a step's numbers.
type LaunchMetrics struct {
	GPU             string  `json:"gpu"`
	SMs             int     `json:"sms"`
	Blocks          int     `json:"blocks"`
	ThreadsPerBlock int     `json:"threads_per_block"`
	WarpsPerBlock   int     `json:"warps_per_block"`
	BlocksPerSM     int     `json:"blocks_per_sm"`
	Limit           string  `json:"limit"`
	WarpsPerSM      int     `json:"warps_per_sm"`
	Occupancy       float64 `json:"occupancy"`
	Waves           int     `json:"waves"`
	TailBlocks      int     `json:"tail_blocks"`
	TailUtilization float64 `json:"tail_utilization"`
	IssueSlots      int     `json:"issue_slots"`
	IdleLanes       float64 `json:"idle_lanes"`
}

func launchRun(c Config) (*LaunchRun, error) {
	g, _ := hw.GPUByID(c["gpu"])
	l, err := kernel.Place(kernel.LaunchConfig{
		GPU: g, Blocks: c.IntOf("blocks"), ThreadsPerBlock: c.IntOf("threads"),
		RegistersPerThread: c.IntOf("registers"), SharedMemPerBlock: c.IntOf("smem"),
	})
	if err != nil {
		return nil, err
	}
	return &LaunchRun{Launch: l, Divergence: kernel.Divergence{Taken: c.IntOf("taken"), CostA: 10, CostB: 30}}, nil
}

var prepareLaunch = prepareWith(func() lessonEngine { return LaunchLesson{} }, func(c Config) (Run, error) { return launchRun(c) })

func launchMetrics(r *LaunchRun) LaunchMetrics {
	l := r.Launch
	return LaunchMetrics{
		GPU: l.Config.GPU.ID, SMs: l.Config.GPU.SMs, Blocks: l.Config.Blocks, ThreadsPerBlock: l.Config.ThreadsPerBlock,
		WarpsPerBlock: l.WarpsPerBlock, BlocksPerSM: l.BlocksPerSM, Limit: l.Limit, WarpsPerSM: l.WarpsPerSM,
		Occupancy: l.Occupancy, Waves: l.Waves, TailBlocks: l.TailBlocks, TailUtilization: l.TailUtilization,
		IssueSlots: r.Divergence.IssueSlots(), IdleLanes: r.Divergence.IdleLanes(),
	}
}

func (LaunchLesson) metrics(les *Lesson, step int) any {
	return launchMetrics(les.Steps[step-1].Run.(*LaunchRun))
}

func (LaunchLesson) narration(les *Lesson, _ int, lang string) []string {
	// The numbers the story quotes, for the lesson's own defaults and the
	// variations its steps set.
	at := func(step int) LaunchMetrics {
		if step > len(les.Steps) {
			step = len(les.Steps)
		}
		return launchMetrics(les.Steps[step-1].Run.(*LaunchRun))
	}
	m, more := at(2), at(3)
	tail, div := at(4), at(5)
	return []string{
		"sms", count(m.SMs),
		"threads", strconv.Itoa(m.ThreadsPerBlock),
		"warps_per_block", strconv.Itoa(m.WarpsPerBlock),
		"blocks_per_sm", strconv.Itoa(m.BlocksPerSM),
		"warps_per_sm", strconv.Itoa(m.WarpsPerSM),
		"occupancy", units.Percent(m.Occupancy),
		"blocks_per_sm_more", strconv.Itoa(more.BlocksPerSM),
		"occupancy_more", units.Percent(more.Occupancy),
		"blocks", count(tail.Blocks),
		"slots", count(tail.SMs * tail.BlocksPerSM),
		"waves", strconv.Itoa(tail.Waves),
		"tail_blocks", count(tail.TailBlocks),
		"tail_util", units.Percent(tail.TailUtilization),
		"issue_slots", strconv.Itoa(div.IssueSlots),
		"idle", units.Percent(div.IdleLanes),
	}
}

func (LaunchLesson) table(les *Lesson, step int, lang string) Table {
	t := func(key string) string { return i18n.T(lang, key) }
	m := launchMetrics(les.Steps[step-1].Run.(*LaunchRun))
	row := func(key, v string) TableRow {
		return TableRow{Key: key, Label: t("metric." + key), Cells: []string{v}, Source: t("source.launch." + key)}
	}
	g, _ := hw.GPUByID(m.GPU)
	return Table{
		Columns:    []string{t("ui.metric"), g.Name},
		ColumnKeys: []string{m.GPU},
		Current:    m.GPU,
		Rows: []TableRow{
			row("warps_per_block", strconv.Itoa(m.WarpsPerBlock)),
			row("blocks_per_sm", paren(lang, strconv.Itoa(m.BlocksPerSM), t("limit."+m.Limit))),
			row("occupancy", paren(lang, units.Percent(m.Occupancy), strconv.Itoa(m.WarpsPerSM)+"/"+strconv.Itoa(g.MaxWarpsPerSM))),
			row("waves", count(m.Waves)),
			row("tail_utilization", units.Percent(m.TailUtilization)),
			row("idle_lanes", paren(lang, units.Percent(m.IdleLanes), i18n.T(lang, "launch.issue_slots", "n", strconv.Itoa(m.IssueSlots)))),
		},
	}
}

func (LaunchLesson) live(les *Lesson, step int, t sim.Time, lang string) string {
	r := les.Steps[step-1].Run.(*LaunchRun)
	w := min(r.WaveAt(t), r.Launch.Waves)
	return i18n.T(lang, "ui.live_wave", "wave", strconv.Itoa(w), "waves", strconv.Itoa(r.Launch.Waves))
}
