// Package headless is what the browser tests (site/browsertest) and the
// poster renderer (cmd/posters) share about driving headless Chromium with
// chromedp: finding the browser, the flags it runs with (WebGL through
// SwiftShader), evaluating JavaScript into Go values, and reading console
// messages.
package headless

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"strings"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// ChromiumPath is override when set, else the first Chromium on PATH.
func ChromiumPath(override string) (string, error) {
	if override != "" {
		return override, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no chromium, chromium-browser or google-chrome on PATH (run .ci/deps.sh, or name the browser)")
}

// AllocatorOptions start bin headless with WebGL drawn by SwiftShader, a
// private profile and a window of w×h CSS pixels; extra come last.
func AllocatorOptions(bin, profile string, w, h int, extra ...chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.NoFirstRun,
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(w, h),
	)
	return append(opts, extra...)
}

// EvalJSON evaluates a JavaScript expression (awaiting it if it is a
// promise), passes the value through JSON.stringify and decodes it into v.
// An undefined value is an error.
func EvalJSON(ctx context.Context, expr string, v any) error {
	wrapped := "(async () => { const v = await (" + expr + "\n); return v === undefined ? undefined : JSON.stringify(v); })()"
	var out *string
	err := chromedp.Run(ctx, chromedp.Evaluate(wrapped, &out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams {
		return p.WithAwaitPromise(true)
	}))
	if err != nil {
		return err
	}
	if out == nil {
		return errors.New("value is undefined")
	}
	return json.Unmarshal([]byte(*out), v)
}

// ConsoleText is a console call's arguments as one line of text.
func ConsoleText(args []*runtime.RemoteObject) string {
	parts := make([]string, 0, len(args))
	for _, a := range args {
		switch {
		case len(a.Value) > 0:
			var s string
			if json.Unmarshal(a.Value, &s) == nil {
				parts = append(parts, s)
			} else {
				parts = append(parts, string(a.Value))
			}
		case a.Description != "":
			parts = append(parts, a.Description)
		default:
			parts = append(parts, string(a.Type))
		}
	}
	return strings.Join(parts, " ")
}
