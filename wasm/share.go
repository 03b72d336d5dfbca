//go:build js && wasm

package main

import (
	"image"
	"math"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/gpuscope/gpuscope/page"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// share.go is issue 7's "Share / Embed" dialog: a link to this moment, an
// iframe snippet built from embed options (validated exactly as a URL
// fragment is, by scenarios.ApplyFragment), and exports of what is on
// screen — a PNG with a caption (pixels read by Draw, see app.snap) and a
// 5-second WebM. The same code serves index.html and embed.html; the
// dialog is built on first open. Every text comes from the i18n
// catalogues, marked data-i18n so that ui.refresh re-translates it.
//
// Go compiled to wasm is bulky per call and per branch (main.wasm has a
// gzip budget), so the dialog's structure is one template and its
// controls share one listener per event type.

// shareState is the dialog's own state (one page, one dialog).
var shareState struct {
	dialog    js.Value // the <dialog>; undefined until first opened
	langSet   bool     // the reader chose the embed's language
	recording bool
}

// shareHead is the dialog up to its checkboxes, shareTail the rest. They
// hold no text: every text is set from the i18n catalogues as text (the
// data-i18n keys), and the reader's own values (origins) go in as values,
// never as HTML. The embed options are a form whose fields are named by
// their fragment keys: FormData reads them (the form has two text fields,
// so Enter submits nothing; were it to, method=dialog only closes it).
const shareHead = `<form id="share-form" class="share-body" method="dialog"><div class="share-head"><h2 id="share-title" data-i18n="ui.share"></h2>` +
	`<button type="button" id="share-close" data-i18n="ui.share_close"></button></div>` +
	`<section class="share-section"><label for="share-link" class="share-h" data-i18n="ui.share_link"></label>` +
	`<div class="share-row"><input type="text" id="share-link" readonly spellcheck="false">` +
	`<button type="button" id="share-copy-link" data-i18n="ui.share_copy_link"></button></div></section>` +
	`<section class="share-section"><h3 class="share-h" data-i18n="ui.share_embed"></h3>` +
	`<fieldset class="share-hide"><legend data-i18n="ui.share_hide"></legend>`

const shareTail = `</fieldset><div class="share-grid">` +
	`<div class="share-field"><label for="share-theme" data-i18n="ui.share_theme"></label><select id="share-theme" name="theme">` +
	`<option value="auto" data-i18n="ui.share_theme_auto"></option><option value="light" data-i18n="ui.share_theme_light"></option>` +
	`<option value="dark" data-i18n="ui.share_theme_dark"></option></select></div>` +
	`<div class="share-field"><label for="share-motion" data-i18n="ui.share_motion"></label><select id="share-motion" name="motion">` +
	`<option value="auto" data-i18n="ui.share_motion_auto"></option><option value="full" data-i18n="ui.share_motion_full"></option>` +
	`<option value="reduced" data-i18n="ui.share_motion_reduced"></option></select></div>` +
	`<div class="share-field"><label for="share-lang" data-i18n="ui.share_lang"></label><select id="share-lang" name="lang">` +
	`<option value="en" lang="en">English</option><option value="zh" lang="zh-Hans">简体中文</option></select></div>` +
	`<div class="share-field"><label for="share-load" data-i18n="ui.share_load"></label><select id="share-load" name="load">` +
	`<option value="click" data-i18n="ui.share_load_click"></option><option value="visible" data-i18n="ui.share_load_visible"></option>` +
	`<option value="auto" data-i18n="ui.share_load_auto"></option></select></div>` +
	`<div class="share-field"><label for="share-steps" data-i18n="ui.share_steps"></label>` +
	`<input type="text" id="share-steps" name="steps" spellcheck="false" autocomplete="off" inputmode="numeric" aria-describedby="share-error"></div></div>` +
	`<label class="share-check"><input type="checkbox" id="share-autoplay" name="autoplay" value="1"><span data-i18n="ui.share_autoplay"></span></label>` +
	`<div class="share-field"><label for="share-origins" data-i18n="ui.share_origins"></label>` +
	`<input type="text" id="share-origins" name="origins" placeholder="https://your-blog.example" spellcheck="false" autocomplete="off" inputmode="url" aria-describedby="share-error"></div>` +
	`<p id="share-error" class="error" role="alert"></p>` +
	`<div class="share-field"><label for="share-snippet" data-i18n="ui.share_snippet"></label>` +
	`<textarea id="share-snippet" readonly rows="6" spellcheck="false"></textarea></div>` +
	`<div class="share-row"><button type="button" id="share-copy" data-i18n="ui.share_copy"></button></div></section>` +
	`<section class="share-section"><h3 class="share-h" data-i18n="ui.share_export"></h3>` +
	`<div class="share-row"><button type="button" id="share-png" data-i18n="ui.share_png"></button>` +
	`<button type="button" id="share-webm" data-i18n="ui.share_webm"></button>` +
	`<button type="button" id="share-trace" data-i18n="ui.share_trace" hidden></button></div></section>` +
	`<p id="share-status" class="share-status" role="status" aria-live="polite"></p><a id="share-dl" hidden></a></form>`

// set sets a property of the element id. The dialog's elements are
// handled as plain js.Values: dom's wrappers cost more in main.wasm at
// every call site.
//
//go:noinline
func set(id, prop string, v any) { document.Call("getElementById", id).Set(prop, v) }

// openShare opens the dialog, building it first if need be. The caller
// holds a.mu (ui.go binds #btn-share with u.on).
func (a *app) openShare() {
	st := a.player.State()
	if shareState.dialog.IsUndefined() {
		a.buildShare(st)
	}
	if !shareState.langSet {
		set("share-lang", "value", st.Lang)
	}
	a.shareUpdate()
	if !shareState.dialog.Get("open").Bool() {
		shareState.dialog.Call("showModal")
	}
}

// buildShare builds the dialog, its form set from the page's own embed
// options, and binds its controls.
func (a *app) buildShare(st scenarios.State) {
	e := st.Embed
	html := shareHead
	for _, p := range scenarios.HideParts {
		html += `<label class="share-check"><input type="checkbox" name="hide" id="share-hide-` + p + `" value="` + p +
			`"><span data-i18n="ui.share_hide_` + p + `"></span></label>`
	}
	d := create("dialog")
	d.SetID("share-dialog")
	d.SetAttribute("class", "share-dialog")
	d.SetAttribute("aria-labelledby", "share-title")
	d.SetInnerHTML(html + shareTail)
	dv := d.Underlying()
	list := dv.Call("querySelectorAll", "[data-i18n]")
	for i := range list.Length() {
		el := list.Index(i)
		el.Set("textContent", i18n.T(st.Lang, el.Call("getAttribute", "data-i18n").String()))
	}
	document.Get("body").Call("appendChild", dv)
	shareState.dialog = dv
	for _, p := range e.Hide {
		set("share-hide-"+p, "checked", true)
	}
	set("share-autoplay", "checked", e.Autoplay)
	steps := ""
	if e.Steps != (scenarios.StepRange{}) {
		steps = e.Steps.String()
	}
	for i, v := range []string{e.Theme, e.Motion, e.Load, strings.Join(e.Origins, ", "), steps} {
		if v != "" {
			set("share-"+[]string{"theme", "motion", "load", "origins", "steps"}[i], "value", v)
		}
	}

	listen(dv, "change", false, func(ev js.Value) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if ev.Get("target").Get("id").String() == "share-lang" {
			shareState.langSet = true
		}
		a.shareUpdate()
	})
	// The page's own keys (ui.go, keys.go) are not for the dialog's
	// controls; Escape still closes it (the browser's default action).
	listen(dv, "keydown", false, func(ev js.Value) { ev.Call("stopPropagation") })
	listen(dv, "close", false, func(js.Value) {
		document.Call("getElementById", "btn-share").Call("focus")
	})
	listen(dv, "click", false, func(ev js.Value) {
		switch ev.Get("target").Get("id").String() {
		case "share-close":
			dv.Call("close")
		case "share-copy-link":
			a.copyField("share-link")
		case "share-copy":
			a.copyField("share-snippet")
		case "share-png":
			a.exportPNG()
		case "share-webm":
			a.exportWebM()
		case "share-trace":
			a.exportTrace()
		}
	})
}

// shareUpdate refreshes the link and the snippet from the player's state
// and the form. A bad value is shown in #share-error, naming its field,
// and the snippet keeps its last good value. The caller holds a.mu.
func (a *app) shareUpdate() {
	if shareState.dialog.IsUndefined() {
		return
	}
	st := a.player.State()
	href := window.Get("location").Get("href").String()
	set("share-link", "value", href)
	// A step with a plan (the strategy lessons, the sandbox) can be
	// downloaded as a trace.
	_, plan := a.player.Run().(*scenarios.PlanRun)
	set("share-trace", "hidden", !plan)
	// The range of steps' placeholder is the whole lesson.
	set("share-steps", "placeholder", "1-"+strconv.Itoa(len(a.player.Lesson().Steps)))

	// The form as a fragment: hide=a,b&theme=…&motion=…&lang=…&load=…&
	// origins=…[&steps=…][&autoplay=1], encoded by the browser (an empty
	// range of steps: every step).
	form := js.Global().Get("FormData").New(document.Call("getElementById", "share-form"))
	frag := "hide=" + form.Call("getAll", "hide").Call("join", ",").String() + "&"
	form.Call("delete", "hide")
	if strings.TrimSpace(form.Call("get", "steps").String()) == "" {
		form.Call("delete", "steps")
	}
	frag += js.Global().Get("URLSearchParams").New(form).Call("toString").String()
	prev := st
	prev.Embed = scenarios.Embed{}
	next, errs := scenarios.ApplyFragment(prev, frag)

	msg := ""
	bad := map[string]bool{}
	for _, err := range errs {
		msg += err.Localize(st.Lang) + "\n"
		bad[err.Field] = true
	}
	// Only the origins and the steps are free text: the other controls
	// offer valid values alone (an overlong list of origins makes the
	// fragment too long). The field an error names is marked invalid.
	document.Call("getElementById", "share-origins").Call("setAttribute", "aria-invalid", msg != "" && !bad["steps"])
	document.Call("getElementById", "share-steps").Call("setAttribute", "aria-invalid", bad["steps"])
	set("share-error", "textContent", strings.TrimSpace(msg))
	if msg != "" {
		return
	}
	if next.Embed.Load == "click" {
		next.Embed.Load = "" // the default: keep the snippet short
	}
	// The folder that holds embed.html: the address without its query,
	// fragment and file name.
	if i := strings.IndexAny(href, "?#"); i >= 0 {
		href = href[:i]
	}
	set("share-snippet", "value", scenarios.Snippet(href[:strings.LastIndexByte(href, '/')+1], next))
}

// shareSay writes the status line (announced politely) in the page's
// language.
func (a *app) shareSay(key string, args ...string) {
	a.mu.Lock()
	lang := a.player.State().Lang
	a.mu.Unlock()
	set("share-status", "textContent", i18n.T(lang, key, args...))
}

// copyField copies the text of the input or textarea id: by the Clipboard
// API, else by selecting it and execCommand("copy"), else it says how to
// copy by hand (the text is left selected).
func (a *app) copyField(id string) {
	el := document.Call("getElementById", id)
	set("share-status", "textContent", "")
	var done js.Func
	done = js.FuncOf(func(_ js.Value, args []js.Value) any {
		done.Release()
		key := "ui.share_copied"
		if len(args) == 0 || !args[0].Truthy() { // no Clipboard API, or it refused
			el.Call("focus")
			el.Call("select")
			if !document.Call("execCommand", "copy").Truthy() {
				key = "ui.share_copy_manual"
			}
		}
		a.shareSay(key)
		return nil
	})
	if clip := window.Get("navigator").Get("clipboard"); clip.Truthy() {
		clip.Call("writeText", el.Get("value")).Call("then", done.Call("bind", nil, true), done.Call("bind", nil, false))
	} else {
		done.Invoke()
	}
}

// try runs f and returns the JavaScript exception it threw, if any.
func try(f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = js.Error{Value: js.ValueOf("failed")}
			if e, ok := r.(error); ok {
				err = e
			}
		}
	}()
	f()
	return nil
}

// exportPNG asks the next Draw for the picture (see app.snap): the canvas
// is WebGL without preserveDrawingBuffer, so only Draw can read it. The
// caption: the lesson and step, the step's title, the knobs and the
// page's address.
func (a *app) exportPNG() {
	a.mu.Lock()
	defer a.mu.Unlock()
	st := a.player.State()
	lines := page.Caption(a.player, window.Get("location").Get("href").String())
	name, dark, dpr := page.ExportName(st, "png"), a.dark, a.dpr
	// The picture only: the stage, not the canvas under the side panel.
	r := a.stage
	crop := image.Rect(int(float64(r[0])*dpr), int(float64(r[1])*dpr), int(float64(r[0]+r[2])*dpr), int(float64(r[1]+r[3])*dpr))
	set("share-png", "disabled", true)
	a.snap = func(screen *ebiten.Image) {
		if err := try(func() { savePNG(screen, crop, lines, name, st.Lang, dark, dpr) }); err != nil {
			a.shareSay("ui.share_failed", "reason", err.Error())
		}
		set("share-png", "disabled", false)
	}
}

// savePNG reads the part crop of the screen (the picture's stage), adds a
// caption band below it and downloads the whole as a PNG.
func savePNG(screen *ebiten.Image, crop image.Rectangle, lines []string, name, lang string, dark bool, dpr float64) {
	if crop = crop.Intersect(screen.Bounds()); crop.Empty() {
		crop = screen.Bounds()
	}
	w, h := crop.Dx(), crop.Dy()
	pix := make([]byte, 4*w*h)
	screen.SubImage(crop).(*ebiten.Image).ReadPixels(pix)
	for i := 3; i < len(pix); i += 4 {
		pix[i] = 255 // the picture is opaque; ImageData wants straight alpha
	}
	arr := js.Global().Get("Uint8ClampedArray").New(len(pix))
	js.CopyBytesToJS(arr, pix)

	font := math.Round(14 * dpr)
	lineH := math.Round(font * 1.45)
	pad := math.Round(10 * dpr)
	band := int(2*pad + float64(len(lines))*lineH)
	c := document.Call("createElement", "canvas")
	c.Set("width", w)
	c.Set("height", h+band)
	ctx := c.Call("getContext", "2d")
	ctx.Call("putImageData", js.Global().Get("ImageData").New(arr, w, h), 0, 0)
	colours := []string{"#ffffff", "#d3d8e0", "#14171c"} // --panel, --border, --fg
	if dark {
		colours = []string{"#171a21", "#2c313c", "#e8eaf0"}
	}
	ctx.Set("fillStyle", colours[0])
	ctx.Call("fillRect", 0, h, w, band)
	ctx.Set("fillStyle", colours[1])
	ctx.Call("fillRect", 0, h, w, max(1, int(dpr))) // a rule above the caption
	ctx.Set("fillStyle", colours[2])
	ctx.Set("textBaseline", "middle")
	for i, l := range lines {
		weight := "400 "
		if i == 0 {
			weight = "600 "
		}
		ctx.Set("font", weight+strconv.Itoa(int(font))+`px system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "PingFang SC", "Noto Sans CJK SC", sans-serif`)
		ctx.Call("fillText", l, pad, float64(h)+pad+(float64(i)+0.5)*lineH, math.Max(1, float64(w)-2*pad))
	}
	var cb js.Func
	cb = js.FuncOf(func(_ js.Value, args []js.Value) any {
		cb.Release()
		download(args[0], lang, map[string]any{"type": "png", "width": w, "height": h + band, "name": name})
		return nil
	})
	c.Call("toBlob", cb, "image/png")
}

// download saves blob under out["name"] through the dialog's <a download>
// (the rest of the page is inert while it is open), sets
// window.gpuscope.lastExport to out with the blob's size added (for tests)
// and says so.
func download(blob js.Value, lang string, out map[string]any) {
	name := out["name"].(string)
	key := "ui.share_failed"
	if blob.Truthy() {
		key = "ui.share_saved"
		url := js.Global().Get("URL").Call("createObjectURL", blob)
		set("share-dl", "href", url)
		set("share-dl", "download", name)
		document.Call("getElementById", "share-dl").Call("click")
		out["bytes"] = blob.Get("size").Int()
		js.Global().Get("gpuscope").Set("lastExport", js.ValueOf(out))
		go func() {
			time.Sleep(time.Minute)
			js.Global().Get("URL").Call("revokeObjectURL", url)
		}()
	}
	set("share-status", "textContent", i18n.T(lang, key, "name", name, "reason", name))
}

// exportWebM records 5 s of the canvas as WebM, playing the lesson
// meanwhile (and pausing it again after if it was paused).
func (a *app) exportWebM() {
	if shareState.recording {
		return
	}
	rec := window.Get("MediaRecorder")
	canvas := document.Call("querySelector", "body > canvas")
	if !rec.Truthy() || !canvas.Truthy() || canvas.Get("captureStream").IsUndefined() {
		a.shareSay("ui.share_no_recorder")
		return
	}
	mime := ""
	for _, m := range []string{"video/webm;codecs=vp9", "video/webm;codecs=vp8", "video/webm"} {
		if rec.Call("isTypeSupported", m).Bool() {
			mime = m
			break
		}
	}
	if mime == "" {
		a.shareSay("ui.share_no_webm")
		return
	}
	btn := document.Call("getElementById", "share-webm")
	a.mu.Lock()
	started := !a.player.Playing()
	if started {
		a.player.Play() // at a step's end this goes on to the next step
	}
	name, lang := page.ExportName(a.player.State(), "webm"), a.player.State().Lang
	a.mu.Unlock()
	// Recorded whole (no timeslice), the video arrives in one
	// dataavailable event once the recorder stops.
	var r, stream js.Value
	var onData js.Func
	onData = js.FuncOf(func(_ js.Value, args []js.Value) any {
		onData.Release()
		stream.Call("getTracks").Index(0).Call("stop")
		download(args[0].Get("data"), lang, map[string]any{"type": "webm", "mime": mime, "name": name})
		shareState.recording = false
		btn.Call("setAttribute", "data-i18n", "ui.share_webm")
		btn.Set("disabled", false)
		a.mu.Lock()
		if started {
			a.player.Pause()
		}
		btn.Set("textContent", i18n.T(a.player.State().Lang, "ui.share_webm"))
		a.shareUpdate()
		a.mu.Unlock()
		return nil
	})
	if err := try(func() {
		stream = canvas.Call("captureStream", 30)
		r = rec.New(stream, map[string]any{"mimeType": mime})
		r.Set("ondataavailable", onData)
		r.Call("start")
	}); err != nil {
		onData.Release()
		a.mu.Lock()
		if started {
			a.player.Pause()
		}
		a.mu.Unlock()
		a.shareSay("ui.share_failed", "reason", err.Error())
		return
	}
	shareState.recording = true
	btn.Call("removeAttribute", "data-i18n") // it shows the countdown
	btn.Set("disabled", true)
	set("share-status", "textContent", "")
	go func() {
		for s := 5; s > 0; s-- {
			btn.Set("textContent", i18n.T(lang, "ui.share_recording", "s", strconv.Itoa(s)))
			time.Sleep(time.Second)
		}
		r.Call("stop")
	}()
}

// exportTrace downloads the step's plan as Chrome Trace Event JSON
// (parallel.Result.ChromeTrace: a process a pipeline stage, its compute,
// communication and memory), for Perfetto or chrome://tracing; its
// otherData names the gpuscope plan command that prints the same step.
func (a *app) exportTrace() {
	a.mu.Lock()
	pr, ok := a.player.Run().(*scenarios.PlanRun)
	st := a.player.State()
	a.mu.Unlock()
	if !ok {
		return
	}
	tr, err := pr.Result.ChromeTrace("gpuscope " + strings.Join(scenarios.PlanCommand(pr.Config), " "))
	var b []byte
	if err == nil {
		b, err = tr.JSON()
	}
	if err != nil {
		a.shareSay("ui.share_failed", "reason", err.Error())
		return
	}
	arr := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(arr, b)
	opts := js.Global().Get("Object").New()
	opts.Set("type", "application/json")
	blob := js.Global().Get("Blob").New(js.ValueOf([]any{arr}), opts)
	download(blob, st.Lang, map[string]any{"type": "trace", "name": page.ExportName(st, "trace.json"), "events": len(tr.TraceEvents)})
}
