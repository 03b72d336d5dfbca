package scenarios

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

// Each scenario is also a golden test (STYLE.md §6): run headless at its
// defaults, the numbers named by its steps' checkpoint: lines are compared
// with testdata/lessons/ID.golden. Regenerate with go test -update.
func TestLessonCheckpointsGolden(t *testing.T) {
	for _, s := range All() {
		t.Run(s.ID, func(t *testing.T) {
			les, err := Prepare(s, s.Defaults())
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "# %s at its defaults: %s\n", s.ID, EncodeFragment(State{Scenario: s.ID, Step: 1, Lang: "en", Config: s.Defaults()}))
			for i, sr := range les.Steps {
				raw, _ := json.Marshal(les.Metrics(i + 1))
				var fields map[string]any
				dec := json.NewDecoder(strings.NewReader(string(raw)))
				dec.UseNumber()
				_ = dec.Decode(&fields)
				fmt.Fprintf(&b, "step %d %s window %d..%d ps\n", i+1, sr.Step.ID, int64(sr.From), int64(sr.To))
				for _, c := range sr.Step.Checkpoints {
					v, ok := fields[c]
					if !ok {
						t.Errorf("step %s: checkpoint %q is not a metric", sr.Step.ID, c)
					}
					fmt.Fprintf(&b, "  %s = %v\n", c, v)
				}
			}
			golden.Check(t, "lessons/"+s.ID+".golden", b.String())
		})
	}
}

// The ring lesson's numbers against hand-worked arithmetic at several
// sizes: every step's run agrees with the closed forms within 1%.
func TestRingLessonNumbers(t *testing.T) {
	s, _ := Get("ring-allreduce")
	for _, gpus := range []string{"2", "8", "64"} {
		for _, link := range []string{"nvlink4", "ib-ndr"} {
			cfg, _ := s.Set(s.Defaults(), "gpus", gpus)
			cfg, _ = s.Set(cfg, "link", link)
			les, err := Prepare(s, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m := les.Metrics(6).(CollectiveMetrics)
			n := float64(m.Ranks)
			S := float64(m.Bytes)
			alpha, bw := 1e-6, 450e9
			if link == "ib-ndr" {
				alpha, bw = 5e-6, 50e9
			}
			ring := 2 * (n - 1) * (alpha + S/(n*bw))
			star := 2*alpha + 2*(n-1)*S/bw
			if e := math.Abs(m.Ring.TimeS-ring) / ring; e > 0.01 {
				t.Errorf("%s GPUs on %s: ring %g s, want %g", gpus, link, m.Ring.TimeS, ring)
			}
			if e := math.Abs(m.Star.TimeS-star) / star; e > 0.01 {
				t.Errorf("%s GPUs on %s: star %g s, want %g", gpus, link, m.Star.TimeS, star)
			}
		}
	}
}

// A byte knob's value reads in the units it was given in: binary for a
// multiple of 1024 that is not one of 1000, else decimal.
func TestBytesLabel(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{900, "900 B"},
		{12 << 10, "12 KiB"},
		{256 << 20, "256 MiB"},
		{1792 << 20, "1.75 GiB"},
		{1e9, "1 GB"},
		{64e3, "64 kB"},
		{16e9, "16 GB"},
		{460175067, "460 MB"},
		{1 << 30, "1 GiB"},
	}
	for _, tt := range tests {
		if got := BytesLabel(tt.n); got != tt.want {
			t.Errorf("BytesLabel(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

// The sweep: ring time nearly flat in N, star time linear in N−1, on the
// engine, with the configured count included.
func TestSweep(t *testing.T) {
	s, _ := Get("ring-allreduce")
	cfg, _ := s.Set(s.Defaults(), "gpus", "12")
	les, err := Prepare(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := les.Collective()
	var ns []int
	for _, p := range cl.Sweep() {
		ns = append(ns, p.Ranks)
	}
	if got, want := fmt.Sprint(ns), "[2 4 8 12 16 32 64]"; got != want {
		t.Fatalf("sweep ranks %s, want %s", got, want)
	}
	sw := cl.Sweep()
	first, last := sw[0], sw[len(sw)-1]
	// Ring: 2(N−1)/N·S/B grows from S/B to ≈ 2S/B (plus latency): under 2.2×.
	if r := last.RingTimeS / first.RingTimeS; r < 1.5 || r > 2.2 {
		t.Errorf("ring time 64 vs 2 GPUs: ×%.2f, want between 1.5 and 2.2", r)
	}
	// Star: (N−1)·S/B: 63× from 2 to 64 GPUs, within 1%.
	if r := last.StarTimeS / first.StarTimeS; math.Abs(r-63)/63 > 0.01 {
		t.Errorf("star time 64 vs 2 GPUs: ×%.2f, want 63", r)
	}
	for _, p := range cl.Sweep() {
		if p.Ranks == 12 && p.RingTimeS != cl.Compare["ring"].Time.Seconds() {
			t.Errorf("sweep at 12 GPUs: ring %g s, the lesson's run %g s", p.RingTimeS, cl.Compare["ring"].Time.Seconds())
		}
	}
}

// BenchmarkPrepare64 is what a knob change costs the page at the largest
// configuration: every step's run, ring and star, and the sweep.
func BenchmarkPrepare64(b *testing.B) {
	s, _ := Get("ring-allreduce")
	cfg, _ := s.Set(s.Defaults(), "gpus", "64")
	for i := 0; i < b.N; i++ {
		if _, err := Prepare(s, cfg); err != nil {
			b.Fatal(err)
		}
	}
}

// The numbers table and the live line the page shows, now plain Go.
func TestCollectiveTableAndLive(t *testing.T) {
	s, _ := Get("ring-allreduce")
	les, err := Prepare(s, s.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	tb := les.Table(1, "en")
	if len(tb.Columns) != 3 || fmt.Sprint(tb.ColumnKeys) != "[ring star]" || tb.Current != "star" {
		t.Errorf("step 1 table: columns %v keys %v current %q", tb.Columns, tb.ColumnKeys, tb.Current)
	}
	if tb6 := les.Table(6, "en"); tb6.Current != "ring" {
		t.Errorf("step 6 current column %q, want ring", tb6.Current)
	}
	rows := map[string]TableRow{}
	for _, r := range tb.Rows {
		if len(r.Cells) != 2 || r.Label == "" || strings.Contains(r.Label, "⟦") {
			t.Errorf("row %+v", r)
		}
		rows[r.Key] = r
	}
	if got := rows["bytes_sent_per_rank"].Cells; got[0] != "448 MiB" || got[1] != "1.75 GiB" {
		t.Errorf("bytes sent cells %v, want 448 MiB and 1.75 GiB", got)
	}
	if rows["rounds"].Cells[0] != "14" || rows["time_s"].Source == "" {
		t.Errorf("rounds %v, time source %q", rows["rounds"].Cells, rows["time_s"].Source)
	}
	if zh := les.Table(1, "zh"); zh.Columns[1] == tb.Columns[1] && zh.Rows[0].Label == tb.Rows[0].Label {
		t.Errorf("the zh table reads as the en one: %v", zh.Columns)
	}
	// Live: nothing sent at t = 0; at the end the busiest GPU (the star's
	// root) has sent (N−1)·S.
	if l := les.Live(1, 0, "en"); !strings.Contains(l, "0 B") {
		t.Errorf("live at 0: %q", l)
	}
	if l := les.Live(1, les.Steps[0].Run.End(), "en"); !strings.Contains(l, "1.75 GiB") {
		t.Errorf("live at the end of the star: %q", l)
	}
}

func TestSweeps(t *testing.T) {
	if a, b := SweepIntensity(0), SweepIntensity(SweepTime); math.Abs(a-0.01) > 1e-12 || math.Abs(b-1e4) > 1e-6 {
		t.Errorf("intensity sweep %g … %g, want 0.01 … 10000", a, b)
	}
	if a, b := SweepSeq(0), SweepSeq(SweepTime); a != 256 || b != 65536 {
		t.Errorf("sequence sweep %d … %d, want 256 … 65536", a, b)
	}
}
