package scene

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/gpuscope/gpuscope/engine/sim"
	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
)

// The rules of the canvas (../shared/PICTURES.md), checked on the display
// lists of every lesson's every step at its start, middle and end, in
// both languages, on a desktop, a phone, a 640×400 embed and a projector.
//
// A rule a lesson does not meet yet is listed in
// testdata/picture-rules.known ("lesson rule" a line): the test fails on
// a failure not listed there, and on a listed one that no longer fails
// (delete its line), so the list only shrinks.

// ruleFrames are the frames the rules are checked in: the page's stage at
// 1280×800, on a 390×844 phone and in a 640×400 embed (device pixel
// ratio 1), and presentation mode at 1280×800 (the picture ≥ 70% of the
// screen, lines and labels 1.5×, the projector theme).
var ruleFrames = []struct {
	name    string
	frame   Frame
	minText float32 // the smallest text, CSS px
}{
	{"desktop", Frame{Width: 1280, Height: 800, Stage: render.Rect{X: 0, Y: 0, W: 845, H: 800}, Scale: 1, Theme: render.Dark}, 12},
	{"phone", Frame{Width: 390, Height: 844, Stage: render.Rect{X: 0, Y: 0, W: 390, H: 420}, Scale: 1, Theme: render.Light}, 0},
	{"embed", Frame{Width: 640, Height: 400, Stage: render.Rect{X: 0, Y: 0, W: 640, H: 300}, Scale: 1, Theme: render.Dark}, 0},
	{"present", Frame{Width: 1280, Height: 800, Stage: render.Rect{X: 0, Y: 0, W: 1280, H: 576}, Scale: 1.5, Theme: render.Projector}, 20},
}

// A failure of a rule by a lesson, with an example.
type ruleFailures map[string]map[string]string // lesson → rule → example

func (f ruleFailures) add(lesson, rule, format string, args ...any) {
	if f[lesson] == nil {
		f[lesson] = map[string]string{}
	}
	if _, ok := f[lesson][rule]; !ok {
		f[lesson][rule] = fmt.Sprintf(format, args...)
	}
}

func TestPictureRules(t *testing.T) {
	got := ruleFailures{}
	var p Picture
	var l render.List
	for _, s := range scenarios.All() {
		base := prepare(t, s)
		var prev string
		for step := range base.Steps {
			sr := base.Steps[step]
			where := func(at string, fr string, lang string) string {
				return fmt.Sprintf("step %d (%s) at the %s, %s, %s", step+1, sr.Step.ID, at, fr, lang)
			}
			for _, lang := range []string{"en", "zh"} {
				for _, rf := range ruleFrames {
					f := rf.frame
					f.Lang = lang
					for _, at := range []struct {
						name string
						t    sim.Time
					}{{"start", sr.From}, {"middle", middle(base, step+1)}, {"end", sr.To}} {
						l = p.Build(l, Moment{Lesson: base, Step: step + 1, Time: at.t}, f)
						checkList(got, s.ID, where(at.name, rf.name, lang), l, f, rf.minText, lang)
						if at.name == "middle" && rf.name == "desktop" && lang == "en" {
							cur := l.String()
							if step > 0 && cur == prev && !sr.Step.SamePicture {
								got.add(s.ID, "same-picture", "%s draws what step %d drew (mark the step picture: same if on purpose)", where("middle", "desktop", "en"), step)
							}
							prev = cur
						}
					}
				}
			}
		}
	}
	timelineEnds(got)
	known := readKnown(t, "testdata/picture-rules.known")
	var lessons []string
	for id := range got {
		lessons = append(lessons, id)
	}
	slices.Sort(lessons)
	for _, id := range lessons {
		var rules []string
		for r := range got[id] {
			rules = append(rules, r)
		}
		slices.Sort(rules)
		for _, r := range rules {
			if !known[id+" "+r] {
				t.Errorf("%s breaks %s: %s", id, r, got[id][r])
			}
		}
	}
	for k := range known {
		id, r, _ := strings.Cut(k, " ")
		if _, fails := got[id][r]; !fails {
			t.Errorf("%s now meets %s: delete its line from testdata/picture-rules.known", id, r)
		}
	}
}

// checkList checks one display list against the rules that need no
// other picture.
func checkList(got ruleFailures, lesson, where string, l render.List, f Frame, minText float32, lang string) {
	var boxes []render.Rect
	var texts []string
	stage := f.Stage
	for _, it := range l.Items {
		if it.Kind != render.Text || strings.TrimSpace(it.Text) == "" {
			continue
		}
		b := it.Bounds()
		if b.X < stage.X-1 || b.Y < stage.Y-1 || b.X+b.W > stage.X+stage.W+1 || b.Y+b.H > stage.Y+stage.H+1 {
			got.add(lesson, "outside", "%s: %q at %v leaves the stage %v", where, it.Text, b, stage)
		}
		if it.Size < minText { // the frames are at a device pixel ratio of 1: px are CSS px
			got.add(lesson, "small-text", "%s: %q is %.1f px (at least %.0f)", where, it.Text, it.Size, minText)
		}
		for i, o := range boxes {
			if overlap(b, o) {
				got.add(lesson, "overlap", "%s: %q over %q", where, it.Text, texts[i])
				break
			}
		}
		boxes = append(boxes, b)
		texts = append(texts, it.Text)
		if lang == "zh" {
			if w := englishWord(it.Text); w != "" {
				got.add(lesson, "english", "%s: %q (the word %q) in a Chinese picture", where, it.Text, w)
			}
		}
	}
	if c, ok := unkeyed(l, f.Theme); ok {
		got.add(lesson, "unkeyed", "%s: colour %s drawn with no key saying what it means", where, c.Hex())
	}
}

// overlap reports whether two boxes overlap by more than a pixel each way.
func overlap(a, b render.Rect) bool {
	return a.X+a.W > b.X+1 && b.X+b.W > a.X+1 && a.Y+a.H > b.Y+1 && b.Y+b.H > a.Y+1
}

// unkeyed is a colour a mark is drawn in that no key explains: any
// filled shape or line whose colour (alpha aside) is not one of the
// theme's neutrals (background, panel, text, dim, link, GPU, empty).
func unkeyed(l render.List, th render.Theme) (render.Color, bool) {
	rgb := func(c render.Color) [3]uint8 { return [3]uint8{c.R, c.G, c.B} }
	ok := map[[3]uint8]bool{}
	for _, c := range []render.Color{th.Background, th.Panel, th.Text, th.Dim, th.Link, th.GPU, th.Empty} {
		ok[rgb(c)] = true
	}
	for _, k := range l.Keys {
		ok[rgb(k.Color)] = true
	}
	for _, it := range l.Items {
		switch it.Kind {
		case render.FillRect, render.FillCircle, render.Line:
			if !ok[rgb(it.Color)] {
				return it.Color, true
			}
		}
	}
	return render.Color{}, false
}

// latinWord is a run of Latin letters (with inner hyphens), as a word.
var latinWord = regexp.MustCompile(`[A-Za-z][A-Za-z-]*[A-Za-z]`)

// canvasNames are the Latin words a Chinese picture may show: product,
// API and format names the glossary keeps in English, and unit symbols.
var canvasNames = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`GPU GPUs CPU HBM SRAM NVLink NVSwitch InfiniBand IB NDR HDR XDR PCIe NIC
		AllReduce All-Reduce All-to-All ReduceScatter Reduce-Scatter AllGather Tensor Core Cores CUDA SM SMs FP FP32 FP16 BF16 FP8 FP4
		TF32 E4M3 E5M2 ZeRO TP PP DP EP CP SP GEMM FLOP FLOPs TFLOP PFLOP GFLOP MFLOP kFLOP FlashAttention softmax token tokens
		Adam MFU GPT Llama MTBF GELU LayerNorm Dropout QKV busbw algbw MiB GiB KiB TiB TB GB MB kB ms ns ps TFLOP/s
		NVLS MoE Megatron MegaScale SXM Inf NaN GPipe GHz else Mixtral DeepSeek DeepSeek-V DualPipe MXFP NVFP E8M0 E2M1
		Daly Young`) { // Daly, Young: authors the narration names in Latin too
		canvasNames[w] = true
	}
	// rack-scale-nvlink: GB200 NVL72 racks and HGX nodes.
	canvasNames["NVL"], canvasNames["HGX"] = true, true
}

// englishWord is the first Latin word of three or more letters in s that
// is not a name a Chinese picture keeps in English ("" if none).
func englishWord(s string) string {
	for _, w := range latinWord.FindAllString(s, -1) {
		if len(w) < 3 || canvasNames[w] {
			continue
		}
		// A model or part number: letters run into digits (H100, GPT-3).
		if strings.IndexFunc(w, unicode.IsDigit) >= 0 {
			continue
		}
		return w
	}
	return ""
}

// readKnown reads the known failures: "lesson rule" a line, # comments.
func readKnown(t *testing.T, path string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out[strings.Join(strings.Fields(line), " ")] = true
	}
	return out
}

// timelineEnds checks rule 4 (one number, one source) for the strategy
// lessons: every drawn time line ends at the step time the numbers show
// (Result.Time.Step), within half a percent.
func timelineEnds(got ruleFailures) {
	for _, s := range scenarios.All() {
		if s.Kind != scenarios.KindPlan {
			continue
		}
		les, err := scenarios.Prepare(s, s.Defaults())
		if err != nil {
			continue
		}
		for step, sr := range les.Steps {
			run, ok := sr.Run.(*scenarios.PlanRun)
			if !ok {
				continue
			}
			for _, pt := range run.Timelines {
				drawn, want := timeline(pt).Length, pt.Result.Time.Step
				if want > 0 && (drawn-want)/want > 0.005 || want > 0 && (want-drawn)/want > 0.005 {
					got.add(s.ID, "timeline-end", "step %d (%s): the %s time line ends at %.4g s, the step takes %.4g s", step+1, sr.Step.ID, pt.Label, drawn, want)
				}
			}
		}
	}
}
