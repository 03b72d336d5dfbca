package browsertest

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// main.wasm embeds no catalogue (scenarios/i18n, -tags i18nfetch): an
// English reader's loader fetches i18n/en.txt alone, before the wasm
// starts; a lang=zh link has it fetch i18n/zh.txt too; switching to
// Chinese with nothing fetched yet (here through the command API) fetches
// it there and then; and reaching for the language picker fetches it
// ahead of the pick.
func TestCatalogueFetchedOnDemand(t *testing.T) {
	traffic.reset()
	ctx := open(t, "index.html#scenario=ring-allreduce&step=2")
	waitReady(ctx)
	settle(ctx)
	if all, _ := traffic.count("/i18n/"); all != 1 {
		t.Errorf("an English page requested %d catalogues, want English alone", all)
	}
	var english bool
	evalJSON(ctx, `typeof window.gpuscopeI18n.texts.en === "string"`, &english)
	if p := text(ctx, "#btn-play"); !english || p != "Play" {
		t.Errorf("English catalogue prefetched %v, play button %q", english, p)
	}
	var res struct {
		OK bool `json:"ok"`
	}
	evalJSON(ctx, `window.gpuscope.command({type: "set", lang: "zh"})`, &res)
	settle(ctx)
	if p := text(ctx, "#btn-play"); !res.OK || !hasHan(p) || state(ctx).Lang != "zh" {
		t.Errorf("after set lang=zh: ok %v, play button %q, lang %q; want Chinese", res.OK, p, state(ctx).Lang)
	}
	// (Answered 200, or 304 when an earlier test left it in the cache.)
	if reqs, _ := traffic.count("/i18n/zh.txt"); reqs != 1 {
		t.Errorf("switching to zh: %d requests for i18n/zh.txt, want 1", reqs)
	}
	if reqs, _ := traffic.count("/i18n/en.txt"); reqs != 1 {
		t.Errorf("English was fetched %d times, want once", reqs)
	}

	// A Chinese link: fetched by the loader, before the wasm runs.
	traffic.reset()
	ctx2 := open(t, "index.html#scenario=ring-allreduce&lang=zh&step=3")
	waitReady(ctx2)
	var prefetched bool
	evalJSON(ctx2, `typeof window.gpuscopeI18n.texts.zh === "string"`, &prefetched)
	if n := text(ctx2, "#narration"); !prefetched || !hasHan(n) {
		t.Errorf("lang=zh link: catalogue prefetched %v, narration %q", prefetched, n)
	}
	if reqs, _ := traffic.count("/i18n/zh.txt"); reqs != 1 {
		t.Errorf("lang=zh link: %d requests for i18n/zh.txt, want 1", reqs)
	}

	// Reaching for the picker fetches ahead of the choice.
	ctx3 := open(t, "index.html#scenario=ring-allreduce")
	waitReady(ctx3)
	chromedpRun(t, ctx3, chromedp.Focus("#lang", chromedp.ByQuery))
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got bool
		evalJSON(ctx3, `typeof window.gpuscopeI18n.texts.zh === "string"`, &got)
		if got {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("focusing the language picker did not fetch the Chinese catalogue")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
