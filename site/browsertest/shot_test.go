package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestReadmeScreenshot regenerates site/screenshot.png, the README's
// picture (dark theme, 8 GPUs mid reduce-scatter), when
// GPUSCOPE_README_SHOT=1:
//
//	make build && GPUSCOPE_README_SHOT=1 GPUSCOPE_SITE_DIR=$PWD/site/dist go test -run ReadmeScreenshot ./site/browsertest/
func TestReadmeScreenshot(t *testing.T) {
	if os.Getenv("GPUSCOPE_README_SHOT") != "1" {
		t.Skip("set GPUSCOPE_README_SHOT=1 to regenerate site/screenshot.png")
	}
	ctx := openBlank(t)
	chromedpRun(t, ctx, emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}),
		chromedp.Navigate(baseURL+"index.html#scenario=ring-allreduce&gpus=8&step=4"))
	waitReady(ctx)
	s := state(ctx)
	command(ctx, `{type: "goto", time_s: `+ftoa(s.FromS+0.43*(s.ToS-s.FromS))+`}`)
	settle(ctx)
	png := screenshot(ctx, "readme")
	if err := os.WriteFile(filepath.Join("..", "screenshot.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}
