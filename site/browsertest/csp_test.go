package browsertest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/gpuscope/gpuscope/site/server"
)

// cspRecorder collects every securitypolicyviolation the page reports
// into window.__csp, from before the page's first script runs.
const cspRecorder = `(() => {
  window.__csp = [];
  document.addEventListener("securitypolicyviolation", (e) => {
    window.__csp.push({directive: e.effectiveDirective || e.violatedDirective, blocked: e.blockedURI, source: e.sourceFile + ":" + e.lineNumber, sample: e.sample});
  });
})();`

type cspViolation struct {
	Directive, Blocked, Source, Sample string
}

// The simulator works under the site's Content Security Policy (issue 9):
// index.html and embed.html#load=auto load, compile main.wasm, draw and
// play with no violation reported; the policy arrives as a header on the
// page and on main.wasm; and it is enforced — an inline script the test
// injects is refused. (The server sends the policy on every response, so
// every other browser test runs under it too.)
func TestContentSecurityPolicy(t *testing.T) {
	sideBySide(t)
	for _, path := range []string{"index.html", "embed.html#load=auto"} {
		t.Run(strings.SplitN(path, ".", 2)[0], func(t *testing.T) {
			ctx := openBlank(t)
			chromedpRun(t, ctx,
				chromedp.ActionFunc(func(ctx context.Context) error {
					_, err := page.AddScriptToEvaluateOnNewDocument(cspRecorder).Do(ctx)
					return err
				}),
				chromedp.Navigate(baseURL+path),
			)
			waitReady(ctx)
			// Play a little: the renderer, the timeline and the narration
			// all run.
			for _, c := range []string{`{type: "goto", step: 2}`, `{type: "play"}`} {
				if r := command(ctx, c); !r.OK {
					t.Fatalf("%s: %s refused: %v", path, c, r.Error)
				}
			}
			settle(ctx)
			time.Sleep(500 * time.Millisecond)
			var headers map[string]string
			evalJSON(ctx, `(async () => {
			  const out = {};
			  for (const u of [location.pathname, "main.wasm"]) {
			    const r = await fetch(u, {cache: "no-store"});
			    out[u] = r.headers.get("Content-Security-Policy");
			  }
			  return out;
			})()`, &headers)
			for u, h := range headers {
				if h != server.ContentSecurityPolicy {
					t.Errorf("%s: Content-Security-Policy %q, want %q", u, h, server.ContentSecurityPolicy)
				}
			}
			var seen []cspViolation
			evalJSON(ctx, `window.__csp`, &seen)
			for _, v := range seen {
				t.Errorf("%s: a CSP violation: %s blocked %q at %s (%q)", path, v.Directive, v.Blocked, v.Source, v.Sample)
			}
			for _, e := range consoleErrors(ctx) {
				if strings.Contains(e, "Content Security Policy") {
					t.Errorf("%s: %s", path, e)
				}
			}
			// The policy is enforced: an inline script is refused.
			allowConsoleErrors(ctx, "Content Security Policy")
			var ran bool
			evalJSON(ctx, `(async () => {
			  window.__inline = false;
			  const s = document.createElement("script");
			  s.textContent = "window.__inline = true";
			  document.body.appendChild(s);
			  await new Promise((r) => setTimeout(r, 200));
			  return window.__inline;
			})()`, &ran)
			evalJSON(ctx, `window.__csp`, &seen)
			if ran || len(seen) != 1 || !strings.HasPrefix(seen[0].Directive, "script-src") {
				t.Errorf("%s: an injected inline script ran %v; violations %+v; want it refused by script-src", path, ran, seen)
			}
		})
	}
}
