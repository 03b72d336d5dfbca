package browsertest

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// infraStateOf is the page's state, decoded afresh (a map decoded into
// keeps the last step's keys).
func infraStateOf(ctx context.Context) infraState {
	var st infraState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	return st
}

// answerIfAsked answers the step's open question, if it has one, with
// its first choice — after checking that the numbers wait for it and,
// with a shot name, taking a screenshot of the question — and reports
// whether it asked, with the state after the answer.
func answerIfAsked(t *testing.T, ctx context.Context, st infraState, at, shot string) (infraState, bool) {
	t.Helper()
	if q := st.Question; q == nil || q.Answered {
		return st, false
	}
	if text(ctx, "#metrics table") != "" {
		t.Errorf("%s: numbers shown before the answer", at)
	}
	if shot != "" {
		screenshot(ctx, shot)
	}
	chromedpRun(t, ctx, chromedp.Click(`#predict button[data-choice="0"]`, chromedp.ByQuery))
	settle(ctx)
	return infraStateOf(ctx), true
}

type infraState struct {
	Step     int    `json:"step"`
	Steps    int    `json:"steps"`
	StepID   string `json:"step_id"`
	Metrics  map[string]any
	Error    *string `json:"error"`
	Question *struct {
		Prompt   string   `json:"prompt"`
		Choices  []string `json:"choices"`
		Answered bool     `json:"answered"`
	} `json:"question"`
}

// The infrastructure lessons, step by step: each step's numbers are what
// the CLI command it carries prints, the picture is drawn, and the
// prediction question gates the numbers.
func TestInfraLessons(t *testing.T) {
	sideBySide(t)
	for _, id := range []string{"nvlink-vs-ib", "collectives-at-scale", "fault-tolerance", "mixture-of-experts"} {
		t.Run(id, func(t *testing.T) {
			ctx := open(t, "index.html#scenario="+id)
			waitReady(ctx)
			var st infraState
			evalJSON(ctx, "window.gpuscope.state()", &st)
			asked := 0
			for n := 1; n <= st.Steps; n++ {
				command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
				command(ctx, `{type: "goto", time_s: 1e9}`)
				settle(ctx)
				st = infraStateOf(ctx)
				if st.Error != nil {
					t.Errorf("step %d: %s", n, *st.Error)
				}
				var ok bool
				if st, ok = answerIfAsked(t, ctx, st, fmt.Sprintf("step %d", n), ""); ok {
					asked++
				}
				cmd, _ := st.Metrics["command"].(string)
				args := strings.Fields(strings.TrimPrefix(cmd, "gpuscope "))
				var cliOut map[string]any
				cli(t, &cliOut, args...)
				switch id {
				case "mixture-of-experts": // its gpuscope route command
					for _, k := range []string{"active_params", "max_load", "dropped", "dispatch_bytes", "layer_s"} {
						if cliOut[k] != st.Metrics[k] {
							t.Errorf("step %d: %s: CLI %v, page %v", n, k, cliOut[k], st.Metrics[k])
						}
					}
				case "fault-tolerance":
					if cliOut["failures"] != st.Metrics["failures"] || cliOut["goodput"] != st.Metrics["goodput"] {
						t.Errorf("step %d: CLI %v/%v, page %v/%v", n, cliOut["failures"], cliOut["goodput"], st.Metrics["failures"], st.Metrics["goodput"])
					}
				case "nvlink-vs-ib":
					if cliOut["time_s"] != st.Metrics["inter_time_s"] {
						t.Errorf("step %d: CLI %v, page %v", n, cliOut["time_s"], st.Metrics["inter_time_s"])
					}
				case "collectives-at-scale":
					if v, ok := st.Metrics["alltoall_2to1_s"]; ok {
						if cliOut["time_s"] != v {
							t.Errorf("step %d: CLI %v, page %v", n, cliOut["time_s"], v)
						}
						break
					}
					// The lesson ranks the algorithms by their closed forms;
					// the CLI prints that figure beside its flow-level time.
					algos, _ := st.Metrics["algos"].(map[string]any)
					fastest, _ := st.Metrics["fastest"].(string)
					if a, _ := algos[fastest].(map[string]any); a == nil || cliOut["closed_form_time_s"] != a["time_s"] {
						t.Errorf("step %d: CLI closed form %v, page %v", n, cliOut["closed_form_time_s"], algos[fastest])
					}
				default:
					algos, _ := st.Metrics["algos"].(map[string]any)
					fastest, _ := st.Metrics["fastest"].(string)
					if a, _ := algos[fastest].(map[string]any); a == nil || cliOut["time_s"] != a["time_s"] {
						t.Errorf("step %d: CLI %v, page %v", n, cliOut["time_s"], algos[fastest])
					}
				}
				img := decodePNG(t, screenshot(ctx, fmt.Sprintf("%s-step%d-%s", id, n, st.StepID)))
				area := elementRect(ctx, "#stage").image()
				if px := drawn(img, area); px < 2000 {
					t.Errorf("step %d: %d pixels drawn", n, px)
				}
				if id == "mixture-of-experts" && st.StepID == "imbalance" {
					// The hot colour (dark or light theme): the busiest
					// expert's copies over its capacity.
					hot := max(longestRun(img, area, color.RGBA{0xf0, 0x72, 0x1e, 255}), longestRun(img, area, color.RGBA{0xd5, 0x5e, 0x00, 255}))
					if d, _ := st.Metrics["dropped"].(float64); d <= 0 || hot < 10 {
						t.Errorf("imbalance: %v copies dropped, no dropped bar drawn", st.Metrics["dropped"])
					}
				}
			}
			if asked == 0 || (id == "mixture-of-experts" && asked != 2) {
				t.Errorf("%s asked %d questions", id, asked)
			}
		})
	}
}

// The ring grown to several nodes: the page's numbers are the CLI's with
// --nodes, about nine times the one-node time, and the hops between nodes
// are drawn.
func TestRingAcrossNodes(t *testing.T) {
	ctx := open(t, "index.html#scenario=ring-allreduce&step=6&gpus=32&nodes=4")
	waitReady(ctx)
	command(ctx, `{type: "goto", time_s: 1e9}`)
	settle(ctx)
	var st struct {
		Metrics struct {
			TimeS float64 `json:"time_s"`
			Nodes int     `json:"nodes"`
			Inter string  `json:"inter"`
		} `json:"metrics"`
		Error *string `json:"error"`
	}
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Error != nil || st.Metrics.Nodes != 4 || st.Metrics.Inter != "ib-ndr" {
		t.Fatalf("state %+v", st)
	}
	var want struct {
		TimeS float64 `json:"time_s"`
	}
	cli(t, &want, "collective", "--algo", "ring", "--ranks", "32", "--nodes", "4", "--bytes", "268435456", "--link", "nvlink4", "--json")
	if want.TimeS != st.Metrics.TimeS {
		t.Errorf("page %g s, CLI %g s", st.Metrics.TimeS, want.TimeS)
	}
	img := decodePNG(t, screenshot(ctx, "ring-across-nodes"))
	if px := drawn(img, elementRect(ctx, "#stage").image()); px < 2000 {
		t.Errorf("%d pixels drawn", px)
	}
	// A node count that does not divide the GPUs is refused, naming nodes.
	command(ctx, `{type: "set", nodes: 8, gpus: 12}`)
	settle(ctx)
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Error == nil || !strings.Contains(*st.Error, "nodes") {
		t.Errorf("12 GPUs in 8 nodes: error %v", st.Error)
	}
}

// The finished race, in pixels: NVLink's and InfiniBand's bars share one
// time axis, so their lengths are the transfers' times (PICTURES.md rule
// 3) — within 5%, at 1 GB and at 1 kB, on a desktop and on a phone.
func TestRaceBarsInPixels(t *testing.T) {
	sideBySide(t)
	for _, c := range []struct{ name, frag string }{
		{"1GB", "step=1"},
		{"1kB", "step=2"},
		{"phone", "step=1&phone"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := "index.html#scenario=nvlink-vs-ib&theme=light&" + strings.TrimSuffix(c.frag, "&phone")
			var ctx context.Context
			if strings.HasSuffix(c.frag, "&phone") {
				ctx = openSized(t, path, 390, 844)
			} else {
				ctx = open(t, path)
			}
			waitReady(ctx)
			command(ctx, `{type: "goto", time_s: 1e9}`)
			settle(ctx)
			var st infraState
			evalJSON(ctx, "window.gpuscope.state()", &st)
			intra, _ := st.Metrics["intra_time_s"].(float64)
			inter, _ := st.Metrics["inter_time_s"].(float64)
			img := decodePNG(t, screenshot(ctx, "race-bars-"+c.name))
			area := elementRect(ctx, "#stage").image()
			// The lanes' colours in the light theme (render's size palette).
			fast := longestRun(img, area, color.RGBA{0x56, 0xb4, 0xe9, 255})
			slow := longestRun(img, area, color.RGBA{0xe6, 0x9f, 0x00, 255})
			if fast == 0 || intra <= 0 {
				t.Fatalf("bars of %d and %d px, times %g and %g s", fast, slow, intra, inter)
			}
			got, want := float64(slow)/float64(fast), inter/intra
			if got/want > 1.05 || got/want < 0.95 {
				t.Errorf("bars %d and %d px: ratio %.2f, want the times' %.2f within 5%%", fast, slow, got, want)
			}
		})
	}
}

// longestRun is the longest horizontal run of pixels within 12 of want in
// r: the length of a bar drawn in that colour.
func longestRun(img image.Image, r image.Rectangle, want color.RGBA) int {
	r = r.Intersect(img.Bounds())
	best := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		run := 0
		for x := r.Min.X; x < r.Max.X; x++ {
			c := pixelAt(img, x, y)
			if near(c.R, want.R, 12) && near(c.G, want.G, 12) && near(c.B, want.B, 12) {
				run++
				best = max(best, run)
			} else {
				run = 0
			}
		}
	}
	return best
}
