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
	sideBySide(t)
	for _, page := range []string{
		"index.html#scenario=ring-allreduce&lang=en",
		"index.html#scenario=strategy-planner&lang=zh&theme=light",
		"embed.html#scenario=roofline&load=auto&theme=dark",
		"embed.html#scenario=memory-wall",
		"index.html#scenario=pipeline-parallel&present=1",
	} {
		t.Run(page, func(t *testing.T) {
			ctx := openDraft(t, page, viewportW, viewportH) // the DOM's audit, not the picture
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

// courseA11y audits course pages of each kind, in both languages (called
// from TestCourse, which serves the course on an origin of its own).
func courseA11y(t *testing.T, base string) {
	for _, page := range []string{
		"course/en/index.html", "course/zh/ring-allreduce.html", "course/en/zero-stages.html",
		"course/zh/glossary.html", "course/en/search.html?q=HBM", "course/en/validation.html", "course/zh/validation.html",
	} {
		t.Run(page, func(t *testing.T) {
			ctx := courseTab(t, 1280, 800)
			navigate(t, ctx, base+page)
			settle(ctx)
			if vs := audit(t, ctx); len(vs) > 0 {
				t.Errorf("%s: %d serious accessibility violations:%s", page, len(vs), describeViolations(vs))
			}
		})
	}
}

// At 200% zoom (a 1280×800 window shows 640×400 CSS pixels) nothing is
// lost: the page does not scroll sideways, and every control can be
// scrolled into view and has a size.
func TestZoom200(t *testing.T) {
	sideBySide(t)
	for _, page := range []string{"index.html#scenario=pipeline-parallel", "embed.html#scenario=roofline&load=auto", "course/en/roofline.html"} {
		t.Run(page, func(t *testing.T) {
			ctx := openSized(t, page, 640, 400)
			if !strings.HasPrefix(page, "course/") {
				waitReady(ctx)
			}
			settle(ctx)
			var res struct {
				ScrollW, InnerW float64
				Lost            []string
			}
			evalJSON(ctx, `(() => {
			  const lost = [];
			  const controls = [...document.querySelectorAll("button, select, input, textarea, a[href], summary")]
			    // checkVisibility: not in a closed <details>, a closed dialog or
			    // display:none; a skip link shows only when focused.
			    .filter((el) => el.checkVisibility({visibilityProperty: true}) && !el.classList.contains("skip"));
			  for (const el of controls) {
			    el.scrollIntoView({block: "nearest", inline: "nearest"});
			    const r = el.getBoundingClientRect();
			    if (r.width < 1 || r.height < 1 || r.right > innerWidth + 1 || r.left < -1 || r.bottom > innerHeight + 1 || r.top < -1) {
			      lost.push((el.id || el.textContent.trim().slice(0, 30) || el.tagName) + " " + JSON.stringify([r.left, r.top, r.width, r.height].map(Math.round)));
			    }
			  }
			  return {ScrollW: document.scrollingElement.scrollWidth, InnerW: innerWidth, Lost: lost};
			})()`, &res)
			if res.ScrollW > res.InnerW+1 {
				t.Errorf("%s at 200%%: the page is %v px wide in a %v px window (sideways scrolling)", page, res.ScrollW, res.InnerW)
			}
			if len(res.Lost) > 0 {
				t.Errorf("%s at 200%%: controls out of reach: %v", page, res.Lost)
			}
			screenshot(ctx, "zoom200-"+strings.NewReplacer("/", "-", "#", "-", "&", "-", "=", "-").Replace(page))
		})
	}
}
