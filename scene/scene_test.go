package scene

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/internal/golden"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// desktop is the page at 1280×800 and a device pixel ratio of 1: the
// canvas under the whole page, the picture in the stage left of the side
// panel.
var desktop = Frame{Width: 1280, Height: 800, Stage: render.Rect{X: 0, Y: 56, W: 860, H: 680}, Scale: 1, Theme: render.Dark, Lang: "en"}

// prepare is a lesson at its defaults.
func prepare(t testing.TB, s *scenarios.Scenario) *scenarios.Lesson {
	t.Helper()
	les, err := scenarios.Prepare(s, s.Defaults())
	if err != nil {
		t.Fatalf("%s: %v", s.ID, err)
	}
	return les
}

// middle is the middle of step's window.
func middle(les *scenarios.Lesson, step int) sim.Time {
	sr := les.Steps[step-1]
	return sr.From + (sr.To-sr.From)/2
}

// Every registered kind has a picture builder, and every builder is of a
// registered kind.
func TestEveryKindHasABuilder(t *testing.T) {
	for _, k := range scenarios.Kinds() {
		if !HasBuilder(k.Name) {
			t.Errorf("kind %s has no picture builder (add one to builders in scene.go)", k.Name)
		}
	}
	for name := range builders {
		if _, ok := scenarios.KindOf(name); !ok {
			t.Errorf("builder for %q, which is not a registered kind", name)
		}
	}
}

// Every lesson's every step draws something, at its start, middle and
// end, answered or not.
func TestEveryStepDraws(t *testing.T) {
	var p Picture
	var l render.List
	for _, s := range scenarios.All() {
		les := prepare(t, s)
		for step := range les.Steps {
			sr := les.Steps[step]
			for _, at := range []sim.Time{sr.From, middle(les, step+1), sr.To} {
				for _, pending := range []bool{false, true} {
					l = p.Build(l, Moment{Lesson: les, Step: step + 1, Time: at, Pending: pending}, desktop)
					if len(l.Items) == 0 {
						t.Errorf("%s step %d (%s) at %v: an empty picture", s.ID, step+1, sr.Step.ID, at)
					}
				}
			}
		}
	}
}

// Every view a kind offers changes its picture. A kind with one view
// adds it as a layer: the step showing it differs from the step showing
// nothing. A kind with several has a picture each: all differ, and the
// cluster's colourings (tp, pp, dp) differ from each other.
func TestEveryViewChangesThePicture(t *testing.T) {
	for _, k := range scenarios.Kinds() {
		if len(k.Views) == 0 {
			continue
		}
		var base *scenarios.Scenario
		for _, s := range scenarios.All() {
			if s.Kind == k.Name {
				base = s
				break
			}
		}
		if base == nil {
			t.Errorf("kind %s has views but no lesson", k.Name)
			continue
		}
		picture := func(show ...string) string {
			s := *base
			s.Steps = slices.Clone(base.Steps)
			for i := range s.Steps {
				s.Steps[i].Show = show
				s.Steps[i].Predict = ""
			}
			les, err := scenarios.Prepare(&s, s.Defaults())
			if err != nil {
				t.Fatalf("%s with show: %v: %v", k.Name, show, err)
			}
			// The middle of the step, or of its run for a still step (a
			// sweep moves along the run).
			at := middle(les, 1)
			if sr := les.Steps[0]; sr.From == sr.To {
				at = sr.Run.End() / 3
			}
			var p Picture
			return p.Build(render.List{}, Moment{Lesson: les, Step: 1, Time: at}, desktop).String()
		}
		differ := func(shows [][]string) {
			pics := make([]string, len(shows))
			for i, show := range shows {
				pics[i] = picture(show...)
				for j := range i {
					if pics[i] == pics[j] {
						t.Errorf("kind %s: show: %v draws the same picture as show: %v", k.Name, show, shows[j])
					}
				}
			}
		}
		if len(k.Views) == 1 {
			differ([][]string{nil, {k.Views[0]}})
			continue
		}
		var pictures, colourings, matrices [][]string
		for _, v := range k.Views {
			if slices.Contains(scenarios.ClusterModes, v) {
				colourings = append(colourings, []string{scenarios.ViewCluster, v})
			} else if slices.Contains(scenarios.TPMatrixParts, v) {
				matrices = append(matrices, []string{scenarios.ViewTPMatrix, v})
			} else if slices.Contains(scenarios.PlannerParts, v) {
				continue // the tree alone: TestPictureRules' same-picture
			} else {
				pictures = append(pictures, []string{v})
			}
		}
		differ(pictures)
		differ(colourings)
		differ(append(matrices, []string{scenarios.ViewTPMatrix}))
	}
}

// TestGolden records every lesson's every step at the middle of its
// window at the lesson's defaults: each text label in full, the shapes
// counted by kind, and a hash of the whole list. A difference writes the
// whole list beside the golden file (testdata/failed/ID.list).
func TestGolden(t *testing.T) {
	for _, s := range scenarios.All() {
		t.Run(s.ID, func(t *testing.T) {
			les := prepare(t, s)
			var p Picture
			var b, full strings.Builder
			for step := range les.Steps {
				m := Moment{Lesson: les, Step: step + 1, Time: middle(les, step+1)}
				l := p.Build(render.List{}, m, desktop)
				fmt.Fprintf(&b, "step %d %s at %d ps\n", step+1, les.Steps[step].Step.ID, int64(m.Time))
				b.WriteString(digest(l))
				fmt.Fprintf(&full, "# step %d\n%s", step+1, l.String())
			}
			name := "lessons/" + s.ID + ".golden"
			if !t.Run("digest", func(t *testing.T) { golden.Check(t, name, b.String()) }) {
				dir := filepath.Join("testdata", "failed", "lessons")
				_ = os.MkdirAll(dir, 0o755)
				_ = os.WriteFile(filepath.Join(dir, s.ID+".list"), []byte(full.String()), 0o644)
			}
		})
	}
}

// digest is a display list for a golden file: its canvas, every text
// item, the count of every other kind of item and a hash of the whole
// list's text form.
func digest(l render.List) string {
	var b strings.Builder
	counts := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(l.String(), "\n"), "\n") {
		kind, _, _ := strings.Cut(line, " ")
		switch kind {
		case "canvas", "text":
			b.WriteString("  " + line + "\n")
		default:
			counts[kind]++
		}
	}
	var kinds []string
	for k, n := range counts {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	slices.Sort(kinds)
	fmt.Fprintf(&b, "  shapes: %s; sha256 %x\n", strings.Join(kinds, ", "), sha256.Sum256([]byte(l.String())))
	return b.String()
}
