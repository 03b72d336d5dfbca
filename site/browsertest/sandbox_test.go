package browsertest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// sandboxKnobs set every knob of the sandbox away from its default, as a
// teacher's link would: a Llama 2 70B on 256 H200s, TP 4 × CP 2 × PP 4,
// interleaved, ZeRO-2, full recomputation, FP8 with block scaling.
var sandboxKnobs = [][2]string{
	{"model", "llama2-70b"}, {"seq", "4096"}, {"gpu", "h200"}, {"gpus", "256"}, {"gpus_per_node", "8"},
	{"inter", "ib-xdr"}, {"tp", "4"}, {"cp", "2"}, {"cp_algo", "ring"}, {"pp", "4"}, {"zero", "2"},
	{"recompute", "full"}, {"schedule", "interleaved"}, {"interleave", "2"}, {"micro_batch", "2"},
	{"global_batch", "512"}, {"overlap", "off"}, {"dtype", "fp8"}, {"block_scaled", "on"},
}

// The sandbox: a link with every knob set opens that state — its numbers
// are what the gpuscope plan line it shows prints, each step draws — and
// the state's own fragment, opened in another tab, gives the same state
// and numbers. A bad value is named with the allowed ones and the last
// good plan stays; a preset hides a model of one's own's sizes, which
// come back with model=custom.
func TestSandbox(t *testing.T) {
	var frag []string
	for _, kv := range sandboxKnobs {
		frag = append(frag, kv[0]+"="+kv[1])
	}
	ctx := open(t, "index.html#scenario=sandbox&step=1&"+strings.Join(frag, "&"))
	waitReady(ctx)
	var st planState
	evalJSON(ctx, "window.gpuscope.state()", &st)
	if st.Error != nil {
		t.Fatalf("the link's settings refused: %s", *st.Error)
	}
	for _, kv := range sandboxKnobs {
		if got := fmt.Sprint(st.Config[kv[0]]); got != kv[1] {
			t.Errorf("%s: %s, the link says %s", kv[0], got, kv[1])
		}
	}
	if st.Metrics.TP != 4 || st.Metrics.PP != 4 {
		t.Errorf("plan TP %d PP %d, want 4 and 4", st.Metrics.TP, st.Metrics.PP)
	}
	var want planCLI
	args := strings.Fields(strings.TrimPrefix(st.Metrics.Command, "gpuscope "))
	for _, flag := range []string{"--cp 2 --cp-algo ring", "--zero 2", "--recompute full", "--interleave 2", "--dtype fp8", "--block-scaled", "--inter ib-xdr", "--overlap=false"} {
		if !strings.Contains(st.Metrics.Command+" ", " "+flag+" ") {
			t.Errorf("the command %q lacks %s", st.Metrics.Command, flag)
		}
	}
	cli(t, &want, append(args, "--json")...)
	if st.Metrics.Time.Step != want.Time.Step || st.Metrics.Memory.Total != want.Memory.Total || st.Metrics.Params != want.Params {
		t.Errorf("page step %g s, %g bytes, %g params; CLI %+v", st.Metrics.Time.Step, st.Metrics.Memory.Total, st.Metrics.Params, want)
	}
	for n := 1; n <= st.Steps; n++ {
		command(ctx, fmt.Sprintf(`{type: "goto", step: %d}`, n))
		command(ctx, `{type: "goto", time_s: 1000}`)
		settle(ctx)
		var s planState
		evalJSON(ctx, "window.gpuscope.state()", &s)
		img := decodePNG(t, screenshot(ctx, fmt.Sprintf("sandbox-step%d-%s", n, s.StepID)))
		if px := drawn(img, elementRect(ctx, "#stage").image()); px < 2000 {
			t.Errorf("step %d (%s): %d pixels drawn on the stage, want a picture", n, s.StepID, px)
		}
		if s.Metrics.Command != st.Metrics.Command {
			t.Errorf("step %d reads another configuration: %s", n, s.Metrics.Command)
		}
	}

	// The state's fragment, opened afresh, is the same sandbox.
	var fragment string
	evalJSON(ctx, "window.gpuscope.state().fragment", &fragment)
	again := open(t, "index.html#"+strings.TrimPrefix(fragment, "#"))
	waitReady(again)
	var st2 planState
	evalJSON(again, "window.gpuscope.state()", &st2)
	if st2.Metrics.Command != st.Metrics.Command || st2.Metrics.Time.Step != st.Metrics.Time.Step || st2.Step != st.Steps {
		t.Errorf("reopened from %q: step %d, %s (%g s); want step %d, %s (%g s)", fragment, st2.Step, st2.Metrics.Command, st2.Metrics.Time.Step,
			st.Steps, st.Metrics.Command, st.Metrics.Time.Step)
	}

	// A TP that does not divide Llama 2's 64 heads: named, the plan kept.
	allowConsoleErrors(ctx, "tp")
	r := command(ctx, `{type: "set", tp: 3}`)
	settle(ctx)
	var bad planState
	evalJSON(ctx, "window.gpuscope.state()", &bad)
	if r.OK || bad.Error == nil || !strings.Contains(*bad.Error, "tp") || bad.Metrics.Command != st.Metrics.Command {
		t.Errorf("tp=3: ok %v, error %v, command %s", r.OK, bad.Error, bad.Metrics.Command)
	}
	if shown := text(ctx, "#error"); !strings.Contains(shown, "tp") {
		t.Errorf("tp=3: the page shows %q", shown)
	}

	// A preset: no controls for a model of one's own's sizes; custom: back.
	hasControl := func(knob string) bool {
		var ok bool
		evalJSON(ctx, `!!document.getElementById("knob-`+knob+`")`, &ok)
		return ok
	}
	if hasControl("layers") || hasControl("hidden") || !hasControl("tp") || !hasControl("seq") {
		t.Errorf("with llama2-70b: layers %v, hidden %v, tp %v, seq %v; want the sizes hidden, the plan shown",
			hasControl("layers"), hasControl("hidden"), hasControl("tp"), hasControl("seq"))
	}
	chromedpRun(t, ctx, chromedp.SetValue("#knob-model", "custom", chromedp.ByQuery),
		chromedp.Evaluate(`document.getElementById("knob-model").dispatchEvent(new Event("change")) && true`, nil))
	settle(ctx)
	if !hasControl("layers") || !hasControl("hidden") {
		t.Errorf("with a model of one's own: no controls for its sizes")
	}
	var hf bool
	evalJSON(ctx, `!document.getElementById("hf-panel").hidden`, &hf)
	if !hf {
		t.Errorf("the sandbox offers no box to paste a config.json")
	}
}
