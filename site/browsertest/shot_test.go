package browsertest

import (
	"os"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

func TestReadmeShot(t *testing.T) {
	if os.Getenv("SHOT") == "" {
		t.Skip()
	}
	ctx := open(t, "favicon.svg")
	chromedpRun(t, ctx, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}),
		chromedp.Navigate(baseURL+"index.html#scenario=ring-allreduce&gpus=8&step=4"))
	waitReady(ctx)
	s := state(ctx)
	command(ctx, `{type: "goto", time_s: `+ftoa(s.FromS+0.43*(s.ToS-s.FromS))+`}`)
	settle(ctx)
	screenshot(ctx, "readme")
}
