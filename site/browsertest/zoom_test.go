package browsertest

import (
	"context"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scene"
)

type zoomState struct {
	Metrics struct {
		Command string `json:"command"`
	} `json:"metrics"`
	TimeS    float64 `json:"time_s"`
	Fragment string  `json:"fragment"`
	Zoom     *struct {
		Level  string  `json:"level"`
		GPU    int     `json:"gpu"`
		TimeS  float64 `json:"time_s"`
		Stage  int     `json:"stage"`
		Block  string  `json:"block"`
		Layer  int     `json:"layer"`
		Kernel string  `json:"kernel"`
	} `json:"zoom"`
}

// The zoom in the sandbox: a link opens zoomed on a GPU; the kernel it
// names at the moment is the native engine's for the same link and
// moment; + and − (the keys and the buttons) and command({type: "zoom"})
// move between the levels with the moment kept and the URL following;
// each level draws its own picture; a bad level is named with the allowed
// ones and the zoom stays.
func TestZoom(t *testing.T) {
	link := "scenario=sandbox&step=1&gpus=64&tp=8&pp=4&global_batch=32&zoom=gpu&gpu=27"
	ctx := open(t, "index.html#"+link)
	waitReady(ctx)
	if r := command(ctx, `{type: "goto", time_s: 0.9}`); !r.OK {
		t.Fatalf("goto: %v", *r.Error)
	}
	settle(ctx)
	var st zoomState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Zoom == nil || st.Zoom.Level != "gpu" || st.Zoom.GPU != 27 || st.Zoom.TimeS != st.TimeS || st.Zoom.Kernel == "" {
		t.Fatalf("zoom %+v at %g s", st.Zoom, st.TimeS)
	}
	// The same link and moment natively.
	p, errs, err := scenarios.NewPlayerAt(link)
	if err != nil || len(errs) > 0 {
		t.Fatal(err, errs)
	}
	if e := p.Command([]byte(`{"type":"goto","time_s":0.9}`)); e != nil {
		t.Fatal(e)
	}
	if z := p.Report().Zoom; z.Kernel != st.Zoom.Kernel || z.Layer != st.Zoom.Layer || z.Stage != st.Zoom.Stage || z.Block != st.Zoom.Block {
		t.Errorf("page: stage %d %s layer %d %s; native engine: stage %d %s layer %d %s", st.Zoom.Stage, st.Zoom.Block, st.Zoom.Layer, st.Zoom.Kernel,
			z.Stage, z.Block, z.Layer, z.Kernel)
	}
	// And the CLI line the page shows, with --at and --rank.
	var want struct {
		Activity struct {
			Stage  int    `json:"stage"`
			Kind   string `json:"kind"`
			Layer  int    `json:"layer"`
			Kernel struct {
				Name string `json:"name"`
			} `json:"kernel"`
		} `json:"activity"`
	}
	cli(t, &want, append(strings.Fields(strings.TrimPrefix(st.Metrics.Command, "gpuscope ")), "--at", "0.9", "--rank", "27", "--json")...)
	if a := want.Activity; a.Kernel.Name != st.Zoom.Kernel || a.Layer != st.Zoom.Layer || a.Stage != st.Zoom.Stage || a.Kind != st.Zoom.Block {
		t.Errorf("page: stage %d %s layer %d %s; %s --at 0.9 --rank 27: %+v", st.Zoom.Stage, st.Zoom.Block, st.Zoom.Layer, st.Zoom.Kernel, st.Metrics.Command, a)
	}
	if st.Zoom.Stage != 27/16 {
		t.Errorf("GPU 27 of TP 8 × DP 2 × PP 4 on stage %d, want 1", st.Zoom.Stage)
	}

	shots := map[string][32]byte{}
	shoot := func(level string) {
		img := screenshot(ctx, "zoom-"+level)
		shots[level] = sha256.Sum256(img)
		if px := drawn(decodePNG(t, img), elementRect(ctx, "#stage").image()); px < 2000 {
			t.Errorf("zoom %s: %d pixels drawn on the stage", level, px)
		}
	}
	shoot("gpu")
	check := func(how, level string) {
		t.Helper()
		settle(ctx)
		var s zoomState
		evalJSON(ctx, "window.gpuscope.state()", &s)
		if s.Zoom.Level != level || s.Zoom.GPU != 27 || s.TimeS != st.TimeS {
			t.Errorf("%s: zoom %s GPU %d at %g s, want %s GPU 27 at %g", how, s.Zoom.Level, s.Zoom.GPU, s.TimeS, level, st.TimeS)
		}
		want := "zoom=" + level + "&gpu=27"
		var hash string
		evalJSON(ctx, "location.hash", &hash)
		if !strings.Contains(s.Fragment, want) || !strings.Contains(hash, want) {
			t.Errorf("%s: fragment %s, address %s; want %s", how, s.Fragment, hash, want)
		}
	}
	chromedpRun(t, ctx, chromedp.KeyEvent("+"))
	check("+", "sm")
	shoot("sm")
	chromedpRun(t, ctx, chromedp.KeyEvent("-"))
	chromedpRun(t, ctx, chromedp.KeyEvent("-"))
	check("− −", "node")
	shoot("node")
	chromedpRun(t, ctx, chromedp.Click("#btn-zoom-out", chromedp.ByQuery))
	check("the − button", "cluster")
	shoot("cluster")
	chromedpRun(t, ctx, chromedp.Click("#btn-zoom-in", chromedp.ByQuery))
	check("the + button", "node")
	if r := command(ctx, `{type: "zoom", level: "gpu"}`); !r.OK {
		t.Fatalf("zoom gpu: %v", *r.Error)
	}
	check("command", "gpu")
	seen := map[[32]byte]string{}
	for level, h := range shots {
		if other, dup := seen[h]; dup {
			t.Errorf("zoom %s draws the same picture as %s", level, other)
		}
		seen[h] = level
	}

	// A bad level: named, with the allowed ones; the zoom stays.
	r := command(ctx, `{type: "zoom", level: "rack"}`)
	if r.OK || r.Error == nil || !strings.Contains(*r.Error, "cluster, node, gpu, sm") {
		t.Errorf("zoom rack: %+v", r)
	}
	check("a bad level", "gpu")

	// A click on a GPU of the cluster picture zooms into its node, on it.
	command(ctx, `{type: "goto", step: 2}`)
	command(ctx, `{type: "zoom", level: "cluster"}`)
	settle(ctx)
	var vw, vh float64
	evalJSON(ctx, "window.innerWidth", &vw)
	evalJSON(ctx, "window.innerHeight", &vh)
	sr := elementRect(ctx, "#stage")
	if e := p.Command([]byte(`{"type":"goto","step":2}`)); e != nil {
		t.Fatal(e)
	}
	frame := scene.Frame{Width: float32(vw), Height: float32(vh), Stage: render.Rect{X: float32(sr.X), Y: float32(sr.Y), W: float32(sr.Width), H: float32(sr.Height)},
		Scale: 1, Theme: render.Light, Lang: "en"}
	// clickGPU clicks the middle of the place standing for GPU gpu in the
	// native picture of the same moment (its geometry the page's) and
	// checks the zoom it lands on.
	clickGPU := func(what string, m scene.Moment, gpu int, level string) {
		t.Helper()
		var pic scene.Picture
		l := pic.Build(render.List{}, m, frame)
		var target *render.Hit
		for i := range l.Hits {
			if l.Hits[i].GPU == gpu {
				target = &l.Hits[i] // the last: it covers the earlier (a GPU's square over its node's panel)
			}
		}
		if target == nil {
			t.Fatalf("%s has no place for GPU %d (%d places)", what, gpu, len(l.Hits))
		}
		chromedpRun(t, ctx, chromedp.MouseClickXY(float64(target.X+target.W/2), float64(target.Y+target.H/2)))
		settle(ctx)
		var clicked zoomState
		evalJSON(ctx, "window.gpuscope.state()", &clicked)
		if clicked.Zoom.Level != level || clicked.Zoom.GPU != gpu {
			t.Errorf("a click on GPU %d of %s: zoom %+v, want %s", gpu, what, clicked.Zoom, level)
		}
	}
	clickGPU("the cluster picture", scene.Moment{Lesson: p.Lesson(), Step: 2, Time: p.Time()}, 45, "node")
	screenshot(ctx, "zoom-clicked-node")
	// … and a click on a GPU of the node, on that GPU.
	clickGPU("the node picture", scene.Moment{Lesson: p.Lesson(), Step: 2, Time: p.Time(), Zoom: scenarios.Zoom{Level: "node", GPU: 45}}, 46, "gpu")

	// A click on a stage's row of the time line zooms into its first GPU's
	// node (stage 2's first is GPU 32).
	command(ctx, `{type: "goto", step: 1}`)
	command(ctx, `{type: "zoom", level: "cluster"}`)
	settle(ctx)
	if e := p.Command([]byte(`{"type":"goto","step":1}`)); e != nil {
		t.Fatal(e)
	}
	clickGPU("the time line", scene.Moment{Lesson: p.Lesson(), Step: 1, Time: p.Time()}, 32, "node")

	// In Chinese, on a phone, in presentation mode: for the record.
	zh := openSized(t, "index.html#"+strings.Replace(link, "zoom=gpu", "zoom=gpu&lang=zh", 1), 390, 844)
	waitReady(zh)
	command(zh, `{type: "goto", time_s: 0.9}`)
	settle(zh)
	screenshot(zh, "zoom-gpu-zh-phone")
	pr := open(t, "index.html#"+link+"&present=on")
	waitReady(pr)
	command(pr, `{type: "goto", time_s: 0.9}`)
	settle(pr)
	screenshot(pr, "zoom-gpu-present")
}

// The ring lesson's zoom: mid reduce-scatter GPU 3 runs the reduction
// (the page's state says so, as the native engine does); each level
// draws, in both languages.
func TestZoomRing(t *testing.T) {
	link := "scenario=ring-allreduce&step=4&zoom=gpu&gpu=3"
	ctx := open(t, "index.html#"+link)
	waitReady(ctx)
	var st zoomState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	var win struct {
		From float64 `json:"from_s"`
		To   float64 `json:"to_s"`
	}
	evalJSON(ctx, "window.gpuscope.state()", &win)
	mid := (win.From + win.To) / 2
	command(ctx, fmt.Sprintf(`{type: "goto", time_s: %g}`, mid))
	settle(ctx)
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Zoom == nil || st.Zoom.Kernel != "reduce" || st.Zoom.Block != "reduce-scatter" || st.Zoom.GPU != 3 {
		t.Errorf("GPU 3 mid reduce-scatter: zoom %+v", st.Zoom)
	}
	p, _, err := scenarios.NewPlayerAt(link)
	if err != nil {
		t.Fatal(err)
	}
	p.Command([]byte(fmt.Sprintf(`{"type":"goto","time_s":%g}`, mid)))
	if z := p.Report().Zoom; z.Kernel != st.Zoom.Kernel || z.Block != st.Zoom.Block {
		t.Errorf("page %+v, native %+v", st.Zoom, z)
	}
	zoomLevelsDraw(t, ctx, "ring")
	zh := open(t, "index.html#"+link+"&lang=zh")
	waitReady(zh)
	command(zh, fmt.Sprintf(`{type: "goto", time_s: %g}`, mid))
	settle(zh)
	screenshot(zh, "zoom-ring-gpu-zh")
}

// The zoom in a fabric lesson: collectives-at-scale's hierarchical step
// opened zoomed into GPU 3, a quarter of the way into the all-reduce — a
// reduction across nodes, as natively; each level draws; in Chinese too.
func TestZoomFabric(t *testing.T) {
	link := "scenario=collectives-at-scale&step=3&zoom=gpu&gpu=3"
	ctx := open(t, "index.html#"+link)
	waitReady(ctx)
	settle(ctx)
	var st zoomState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Zoom == nil || st.Zoom.Kernel != "reduce" || st.Zoom.Block != "reduce-scatter" || st.Zoom.GPU != 3 {
		t.Errorf("GPU 3 of 16,384: zoom %+v", st.Zoom)
	}
	p, _, err := scenarios.NewPlayerAt(link)
	if err != nil {
		t.Fatal(err)
	}
	if z := p.Report().Zoom; z.Kernel != st.Zoom.Kernel || z.Block != st.Zoom.Block || z.TimeS != st.Zoom.TimeS {
		t.Errorf("page %+v, native %+v", st.Zoom, z)
	}
	zoomLevelsDraw(t, ctx, "fabric")
	zh := open(t, "index.html#"+link+"&lang=zh")
	waitReady(zh)
	settle(zh)
	screenshot(zh, "zoom-fabric-gpu-zh")
}

// zoomLevelsDraw zooms ctx's page to the node, the GPU and the SM in turn
// and checks each draws a picture on the stage (screenshots
// zoom-NAME-LEVEL).
func zoomLevelsDraw(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	for _, lv := range []string{"node", "gpu", "sm"} {
		command(ctx, `{type: "zoom", level: "`+lv+`"}`)
		settle(ctx)
		img := screenshot(ctx, "zoom-"+name+"-"+lv)
		if px := drawn(decodePNG(t, img), elementRect(ctx, "#stage").image()); px < 2000 {
			t.Errorf("%s zoom %s: %d pixels drawn on the stage", name, lv, px)
		}
	}
}
