package browsertest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// axeViolation is one rule axe-core reports as broken, with the elements.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any  `json:"target"`
		HTML   string `json:"html"`
	} `json:"nodes"`
}

// audit runs axe-core (vendored under testdata/axe) on the tab's page and
// returns its serious and critical violations.
func audit(t *testing.T, ctx context.Context) []axeViolation {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "axe", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	var ok bool
	chromedpRun(t, ctx, chromedp.Evaluate(string(src)+";true", &ok))
	var all []axeViolation
	chromedpRun(t, ctx, chromedp.Evaluate(`axe.run(document, {resultTypes: ["violations"]}).then(r => r.violations)`, &all,
		func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	var bad []axeViolation
	for _, v := range all {
		if v.Impact == "serious" || v.Impact == "critical" {
			bad = append(bad, v)
		}
	}
	return bad
}

func describeViolations(vs []axeViolation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintf(&b, "\n  %s (%s): %s", v.ID, v.Impact, v.Help)
		for i, n := range v.Nodes {
			if i == 3 {
				fmt.Fprintf(&b, "\n    … %d more", len(v.Nodes)-3)
				break
			}
			fmt.Fprintf(&b, "\n    %v %s", n.Target, n.HTML)
		}
	}
	return b.String()
}

// The simulator's pages pass an automated accessibility audit: no serious
// or critical axe-core violations, in both themes, in both languages.
func TestAccessibilityAudit(t *testing.T) {
	for _, page := range []string{
		"index.html#scenario=ring-allreduce&lang=en",
		"index.html#scenario=strategy-planner&lang=zh&theme=light",
		"embed.html#scenario=roofline&load=auto&theme=dark",
		"embed.html#scenario=memory-wall",
		"index.html#scenario=pipeline-parallel&present=1",
	} {
		t.Run(page, func(t *testing.T) {
			ctx := open(t, page)
			if !strings.HasPrefix(page, "embed.html#scenario=memory-wall") {
				waitReady(ctx)
			}
			settle(ctx)
			if vs := audit(t, ctx); len(vs) > 0 {
				t.Errorf("%s: %d serious accessibility violations:%s", page, len(vs), describeViolations(vs))
			}
		})
	}
}
