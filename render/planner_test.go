package render

import (
	"github.com/gpuscope/gpuscope/render/draw"
	"math"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/internal/golden"
)

func plannerView(w, h float32, plans int, selected int) PlannerView {
	v := PlannerView{
		Width: w, Height: h, Stage: draw.Rect{X: 0, Y: 0, W: w, H: h}, Scale: 1, Theme: draw.Dark,
		Tree: []DecisionNode{
			{Question: "Does the model fit one GPU?", Answer: false, Taken: true},
			{Question: "Does it fit one node (8 GPUs)?", Answer: true, Taken: true},
			{Question: "Tensor parallel inside a node, pipeline across nodes?"},
		},
		Branch: "tp-dp",
		Usable: 72e9,
		Words:  plannerWords,
	}
	labels := []string{"TP 8 DP 16 Z1 b1", "TP 4 DP 32 Z1 b1", "TP 8 PP 2 DP 8 1F1B", "TP 2 DP 64 Z3 b1"}
	for i := 0; i < plans; i++ {
		c := 1.0 + 0.1*float64(i)
		parts := []TimePart{{"compute", 1.2 * c}, {"tp", 0.3 * c}, {"pp", 0}, {"dp", 0.2 * c}, {"bubble", 0.1 * float64(i%3)}, {"optimizer", 0.05}}
		var step float64
		for _, p := range parts {
			step += p.Seconds
		}
		v.Plans = append(v.Plans, PlanRow{
			Label: labels[i%len(labels)], Step: step, Parts: parts,
			Memory: 30e9 + 6e9*float64(i), Selected: i == selected,
		})
	}
	return v
}

// plannerWords are the English of the planner's canvas keys.
var plannerWords = draw.Words{Lang: "en", T: func(key string, args ...string) string {
	s := map[string]string{"canvas.plan.leaf_dp": "DP", "canvas.plan.leaf_tp-dp": "TP in node + DP", "canvas.plan.leaf_tp-pp-dp": "TP + PP + DP",
		"canvas.plan.yes": "yes", "canvas.plan.no": "no", "canvas.plan.more": "+{n} more"}[key]
	if s == "" {
		return key
	}
	for i := 0; i+1 < len(args); i += 2 {
		s = strings.ReplaceAll(s, "{"+args[i]+"}", args[i+1])
	}
	return s
}}

func TestPlannerGolden(t *testing.T) {
	golden.Check(t, "planner.golden", AppendPlanner(draw.List{}, plannerView(1280, 720, 6, 1)).String())
}

// barParts are the filled rectangles of the parts' colours, by row (y).
func barParts(l draw.List) map[float32][]draw.Item {
	rows := map[float32][]draw.Item{}
	for _, it := range l.Items {
		if it.Kind != draw.FillRect {
			continue
		}
		for _, p := range planParts {
			// The legend's swatches are square; the bars' parts sit on
			// the rows.
			if it.Color == p.C && it.W != it.H {
				rows[it.Y] = append(rows[it.Y], it)
			}
		}
	}
	return rows
}

// Each row's bar stacks its parts in proportion to their seconds, on a
// scale common to all rows (the slowest plan's step is the full width).
func TestPlannerBarsProportional(t *testing.T) {
	v := plannerView(1280, 720, 6, 1)
	l := AppendPlanner(draw.List{}, v)
	rows := barParts(l)
	if len(rows) != len(v.Plans) {
		t.Fatalf("%d bars, want %d", len(rows), len(v.Plans))
	}
	ys := make([]float32, 0, len(rows))
	for y := range rows {
		ys = append(ys, y)
	}
	sort.Slice(ys, func(i, j int) bool { return ys[i] < ys[j] })
	var pxPerSec []float64
	for k, y := range ys {
		parts, plan := rows[y], v.Plans[k]
		var x float32
		for i, p := range parts {
			if i > 0 && math.Abs(float64(p.X-x)) > 0.01 {
				t.Errorf("part %d of the bar at y %.0f starts at %.1f, the previous ends at %.1f", i, p.Y, p.X, x)
			}
			x = p.X + p.W
		}
		scale := float64(parts[0].W) / plan.Parts[0].Seconds
		i := 0
		for _, tp := range plan.Parts {
			if tp.Seconds <= 0 {
				continue
			}
			if i >= len(parts) {
				t.Fatalf("%s: %d parts drawn", plan.Label, len(parts))
			}
			if got := float64(parts[i].W); math.Abs(got-scale*tp.Seconds) > 0.01 {
				t.Errorf("%s: part %s %.2f px, want %.2f", plan.Label, tp.Key, got, scale*tp.Seconds)
			}
			if parts[i].Color != PlanPartColour(tp.Key, draw.Dark) {
				t.Errorf("%s: part %d coloured %s, want %s's", plan.Label, i, parts[i].Color.Hex(), tp.Key)
			}
			i++
		}
		pxPerSec = append(pxPerSec, scale)
	}
	if len(pxPerSec) != len(v.Plans) {
		t.Fatalf("matched %d bars to plans, want %d", len(pxPerSec), len(v.Plans))
	}
	for _, s := range pxPerSec[1:] {
		if math.Abs(s/pxPerSec[0]-1) > 1e-3 {
			t.Errorf("bars on different scales: %.2f and %.2f px/s", pxPerSec[0], s)
		}
	}
}

// The selected row is highlighted, the path taken and its leaf lit, the
// other leaves dim.
func TestPlannerHighlights(t *testing.T) {
	v := plannerView(1280, 720, 6, 3)
	l := AppendPlanner(draw.List{}, v)
	// The highlight: a LinkActive frame round the row whose label is the
	// selected plan's, and no other row's.
	var frames []draw.Item
	for _, it := range l.Items {
		if it.Kind == draw.StrokeRect && it.Color == draw.Dark.LinkActive && it.X > 400 {
			frames = append(frames, it)
		}
	}
	if len(frames) != 1 {
		t.Fatalf("%d highlighted rows, want 1", len(frames))
	}
	f := frames[0]
	inside := func(it draw.Item) bool { return it.Y >= f.Y && it.Y < f.Y+f.H && it.X >= f.X && it.X < f.X+f.W }
	for _, it := range l.Items {
		if it.Kind == draw.Text && it.Text == v.Plans[3].Label && !inside(it) && it.Color == draw.Dark.Text {
			t.Errorf("selected label drawn outside the highlight")
		}
		if it.Kind == draw.Text && it.Text == "4" && it.X > 400 && !inside(it) {
			t.Errorf("rank 4 outside the highlight")
		}
	}
	// Leaves: "TP in node + DP" lit (its text over a LinkActive frame),
	// "DP" and "TP + PP + DP" dim.
	leaf := func(label string) (lit bool, found bool) {
		for i, it := range l.Items {
			if it.Kind == draw.Text && it.Text == label {
				found = true
				for _, b := range l.Items[:i] {
					if b.Kind == draw.StrokeRect && b.Color == draw.Dark.LinkActive && it.X > b.X && it.X < b.X+b.W && it.Y > b.Y && it.Y < b.Y+b.H {
						lit = true
					}
				}
				return lit && it.Color == draw.Dark.Text, found
			}
		}
		return
	}
	for label, want := range map[string]bool{"DP": false, "TP in node + DP": true, "TP + PP + DP": false} {
		lit, found := leaf(label)
		if !found || lit != want {
			t.Errorf("leaf %q: found %v, lit %v; want lit %v", label, found, lit, want)
		}
	}
	// The taken questions are lit, the untaken one is dim.
	for _, q := range v.Tree {
		for _, it := range l.Items {
			if it.Kind == draw.Text && len(it.Text) >= 8 && len(it.Text) <= len(q.Question) && it.Text == q.Question[:len(it.Text)] {
				if (it.Color == draw.Dark.Text) != q.Taken {
					t.Errorf("question %q: colour %s, taken %v", q.Question, it.Color.Hex(), q.Taken)
				}
				break
			}
		}
	}
	// The edges: "no" from the first question and "yes" from the second
	// lit.
	lit := map[string]int{}
	for _, it := range l.Items {
		if it.Kind == draw.Text && (it.Text == "yes" || it.Text == "no") && it.Color == draw.Dark.LinkActive {
			lit[it.Text]++
		}
	}
	if lit["yes"] != 1 || lit["no"] != 1 {
		t.Errorf("lit edges: %v, want one yes and one no", lit)
	}
}

// Rows that do not fit are left out (with a count), the selected one kept.
func TestPlannerManyRows(t *testing.T) {
	v := plannerView(1280, 400, 24, 20)
	l := AppendPlanner(draw.List{}, v)
	rows := len(barParts(l))
	if rows >= 24 || rows < 5 {
		t.Errorf("%d rows drawn on a 400 px stage, want some but not all 24", rows)
	}
	more, sel := false, false
	for _, it := range l.Items {
		if it.Kind == draw.Text && it.Text == "+"+strconv.Itoa(24-rows)+" more" {
			more = true
		}
		if it.Kind == draw.Text && it.Text == "21" {
			sel = true
		}
	}
	if !more || !sel {
		t.Errorf("want a \"+%d more\" line (%v) and the selected plan, rank 21, shown (%v)", 24-rows, more, sel)
	}
	// A phone: the tree above, the plans under it, still drawn.
	v = plannerView(375, 700, 8, 0)
	if rows := len(barParts(AppendPlanner(draw.List{}, v))); rows < 5 {
		t.Errorf("phone: %d rows, want at least 5", rows)
	}
	// A phone's page stage (390×420) and the lesson's long questions:
	// the tree would fill it, so it gives way and the plans are drawn.
	v = plannerView(390, 420, 12, 0)
	for i := range v.Tree {
		v.Tree[i].Question += " The fullest GPU would hold 203 GB against the 74 GB a job can use."
	}
	if rows := len(barParts(AppendPlanner(draw.List{}, v))); rows < 5 {
		t.Errorf("phone stage 390×420: %d rows, want at least 5", rows)
	}
}
