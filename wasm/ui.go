//go:build js && wasm

package main

import (
	"slices"
	"strconv"
	"strings"
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/gpuscope/gpuscope/page"
	"github.com/gpuscope/gpuscope/scenarios"
	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// ui is the page around the canvas: the ids of CONTRACTS (index.html and
// embed.html both have them). Every text it writes comes from the i18n
// catalogues and goes in as text, never as HTML.
//
// Its fields hold no dom types: the app reaches Ebiten as an interface, and
// a dom type reachable from it would keep all of dom in the binary (see
// dom.go); elements are looked up by id when needed.
type ui struct {
	a       *app
	scrub   bool // the reader is dragging the timeline
	knobFor string
	// asked is the prompt of the question shown and answered whether it
	// was answered, to tell when its verdict first appears.
	asked    string
	answered bool
}

func newUI(a *app) *ui {
	u := &ui{a: a}
	u.bind()
	u.bindKeys()
	return u
}

func (u *ui) byID(id string) *dom.BasicHTMLElement { return byID(id) }

// on runs f with the player locked when the element fires typ.
func (u *ui) on(id, typ string, f func(p *scenarios.Player, el *dom.BasicHTMLElement)) {
	el := byID(id)
	if el == nil {
		return
	}
	listen(el.Underlying(), typ, false, func(js.Value) {
		u.a.mu.Lock()
		defer u.a.mu.Unlock()
		f(u.a.player, el)
	})
}

func (u *ui) bind() {
	u.on("btn-prev", "click", func(p *scenarios.Player, _ *dom.BasicHTMLElement) { p.Step(-1) })
	u.on("btn-next", "click", func(p *scenarios.Player, _ *dom.BasicHTMLElement) { p.Step(1) })
	u.on("btn-play", "click", func(p *scenarios.Player, _ *dom.BasicHTMLElement) {
		if p.Playing() {
			p.Pause()
		} else {
			p.Play()
		}
	})
	zoom := func(d int) func(*scenarios.Player, *dom.BasicHTMLElement) {
		return func(p *scenarios.Player, _ *dom.BasicHTMLElement) { u.zoomBy(d) }
	}
	u.on("btn-zoom-in", "click", zoom(1))
	// A click or a tap on a GPU (or a node) of the picture zooms in on
	// it: the canvas lies under the page at its origin, in device pixels.
	listen(document, "click", false, func(e js.Value) {
		if t := e.Get("target"); t.Truthy() && t.Call("closest", "button, a, input, select, textarea, label, summary, details, dialog").Truthy() {
			return
		}
		x, y := float32(e.Get("clientX").Float()), float32(e.Get("clientY").Float())
		u.a.mu.Lock()
		defer u.a.mu.Unlock()
		st := u.a.stage
		if x < st[0] || y < st[1] || x >= st[0]+st[2] || y >= st[1]+st[3] {
			return
		}
		dpr := float32(u.a.dpr)
		g, ok := u.a.list.HitAt(x*dpr, y*dpr)
		if !ok || !u.a.player.Scenario().Zooms() {
			return
		}
		_ = u.a.player.Command([]byte(`{"type":"zoom","delta":1,"gpu":` + strconv.Itoa(g) + `}`))
	})
	u.on("btn-zoom-out", "click", zoom(-1))
	u.on("speed", "change", func(p *scenarios.Player, el *dom.BasicHTMLElement) { p.Set("speed", value(el)) })
	u.on("lang", "change", func(p *scenarios.Player, el *dom.BasicHTMLElement) { p.Set("lang", value(el)) })
	u.on("lesson", "change", func(p *scenarios.Player, el *dom.BasicHTMLElement) { p.Set("scenario", value(el)) })
	u.on("timeline", "input", func(p *scenarios.Player, el *dom.BasicHTMLElement) {
		u.scrub = true
		if f, err := strconv.ParseFloat(value(el), 64); err == nil {
			p.Seek(f / 1000)
		}
	})
	u.on("timeline", "change", func(*scenarios.Player, *dom.BasicHTMLElement) { u.scrub = false })
	// The question's choices are rebuilt on every refresh: one listener
	// on their container reads the button's data-choice.
	if pr := byID("predict"); pr != nil {
		listen(pr.Underlying(), "click", false, func(e js.Value) {
			t := e.Get("target")
			if !t.Truthy() || t.Get("dataset").Get("choice").Type() != js.TypeString {
				return
			}
			n, err := strconv.Atoi(t.Get("dataset").Get("choice").String())
			if err != nil {
				return
			}
			u.a.mu.Lock()
			defer u.a.mu.Unlock()
			u.a.player.Answer(n)
		})
	}
	// Table rows that set a knob (the planner's plans): one listener on
	// the numbers, reading the button's data.
	if mt := byID("metrics"); mt != nil {
		listen(mt.Underlying(), "click", false, func(e js.Value) {
			t := e.Get("target")
			if !t.Truthy() || t.Get("dataset").Get("knob").Type() != js.TypeString {
				return
			}
			knob, val := t.Get("dataset").Get("knob").String(), t.Get("dataset").Get("value").String()
			u.a.mu.Lock()
			defer u.a.mu.Unlock()
			u.a.player.Set(knob, val)
		})
	}
	u.on("btn-hf", "click", func(p *scenarios.Player, _ *dom.BasicHTMLElement) { p.HFConfig(value(byID("hf-config"))) })
	u.on("error-close", "click", func(p *scenarios.Player, _ *dom.BasicHTMLElement) { p.ClearErrors() })
	// Issue 7: the Share / Embed dialog (share.go).
	u.on("btn-share", "click", func(*scenarios.Player, *dom.BasicHTMLElement) { u.a.openShare() })

	// Ebiten's canvas swallows every keydown, Tab included, which would
	// trap a keyboard user on it: Tab is stopped at the window, in the
	// capture phase, before it reaches the canvas, so the browser moves
	// focus as usual.
	listen(window, "keydown", true, func(e js.Value) {
		if e.Get("key").String() == "Tab" {
			e.Call("stopPropagation")
		}
	})

	// Keyboard: Space plays or pauses, arrows step, Home and End jump —
	// unless the reader is typing in a control.
	listen(document, "keydown", false, func(e js.Value) {
		if e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool() || e.Get("altKey").Bool() {
			return
		}
		// Issue 7: not while the share dialog is open (it is modal).
		if d := shareState.dialog; !d.IsUndefined() && d.Get("open").Bool() {
			return
		}
		if t := e.Get("target"); t.Truthy() && t.Get("tagName").Type() == js.TypeString {
			switch t.Get("tagName").String() {
			case "INPUT", "SELECT", "TEXTAREA", "BUTTON":
				return
			}
		}
		u.a.mu.Lock()
		defer u.a.mu.Unlock()
		p := u.a.player
		switch e.Get("key").String() {
		case " ":
			if p.Playing() {
				p.Pause()
			} else {
				p.Play()
			}
		case "ArrowRight", "PageDown":
			p.Step(1)
		case "ArrowLeft", "PageUp":
			p.Step(-1)
		case "Home":
			p.Goto(p.FirstStep())
		case "End":
			p.Goto(p.LastStep())
		default:
			return
		}
		e.Call("preventDefault")
	})
}

// stageRect is #stage's rectangle in CSS pixels: x, y, width, height.
func (u *ui) stageRect() [4]float32 {
	stage := document.Call("getElementById", "stage")
	if !stage.Truthy() {
		w, h := u.viewport()
		return [4]float32{0, 0, float32(w), float32(h)}
	}
	r := stage.Call("getBoundingClientRect")
	f := func(k string) float32 { return float32(r.Get(k).Float()) }
	return [4]float32{f("x"), f("y"), f("width"), f("height")}
}

func (u *ui) viewport() (int, int) {
	return window.Get("innerWidth").Int(), window.Get("innerHeight").Int()
}

func (u *ui) hideLoader() {
	if l := u.byID("loader"); l != nil {
		l.Class().Add("hidden")
		l.SetAttribute("aria-hidden", "true")
	}
}

// dispatch fires a DOM event "gpuscope:NAME" on window, with the state as
// detail, for pages that listen.
func (u *ui) dispatch(name string) {
	ctor := js.Global().Get("CustomEvent")
	if ctor.IsUndefined() {
		return
	}
	ev := ctor.New("gpuscope:"+name, map[string]any{"detail": name})
	js.Global().Call("dispatchEvent", ev)
}

// refresh brings every piece of text and every control up to date with the
// player. It runs once per change, not per frame.
func (u *ui) refresh() {
	p := u.a.player
	st := p.State()
	lang := st.Lang
	t := func(key string, args ...string) string { return i18n.T(lang, key, args...) }

	if lang != u.a.lastLang {
		u.a.lastLang = lang
		htmlLang := "en"
		if lang == "zh" {
			htmlLang = "zh-Hans"
		}
		document.Get("documentElement").Call("setAttribute", "lang", htmlLang)
		for _, el := range queryAll(document, "[data-i18n]") {
			el.SetTextContent(t(el.GetAttribute("data-i18n")))
		}
		for _, el := range queryAll(document, "[data-i18n-label]") {
			el.SetAttribute("aria-label", t(el.GetAttribute("data-i18n-label")))
		}
		setValue(u.byID("lang"), lang)
		u.knobFor = "" // relabel the knobs
		// The lesson picker, in the curriculum's order, titled in the
		// reader's language.
		if sel := byID("lesson"); sel != nil {
			sel.SetInnerHTML("")
			for _, s := range scenarios.All() {
				appendChild(sel, u.option(s.ID, t(s.Title)))
			}
		}
	}
	s := p.Scenario()
	setValue(byID("lesson"), s.ID)
	title := t(s.Title)
	setText(u.byID("title"), title)
	document.Set("title", title+" · gpuscope")

	steps := len(p.Lesson().Steps)
	setText(u.byID("step-label"), t("ui.step", "n", strconv.Itoa(st.Step), "total", strconv.Itoa(steps)))
	stTitle, stText := p.Narration()
	mountAll("narration", page.Narration(stTitle, stText))

	if b := u.byID("btn-play"); b != nil {
		key := "ui.play"
		if p.Playing() {
			key = "ui.pause"
		}
		b.SetAttribute("data-i18n", key)
		b.SetTextContent(t(key))
		b.SetAttribute("aria-pressed", strconv.FormatBool(p.Playing()))
	}
	setValue(u.byID("speed"), strconv.FormatFloat(p.Speed(), 'f', -1, 64))
	setDisabled(u.byID("btn-prev"), st.Step <= p.FirstStep()) // issue 41: an embed's steps=
	setDisabled(u.byID("btn-next"), st.Step >= p.LastStep())

	// A lesson with a model of the reader's own takes a pasted config.json.
	if hf := byID("hf-panel"); hf != nil {
		k, ok := s.Knob("model")
		if ok && slices.Contains(k.Values, "custom") {
			hf.RemoveAttribute("hidden")
		} else {
			hf.SetAttribute("hidden", "")
		}
	}

	if zc := byID("zoom-ctl"); zc != nil {
		if s.Zooms() {
			zc.RemoveAttribute("hidden")
			z := st.Zoom.At()
			setText(u.byID("zoom-label"), t("ui.zoom_"+z, "gpu", strconv.Itoa(st.Zoom.GPU)))
			setDisabled(u.byID("btn-zoom-out"), z == scenarios.ZoomCluster)
			setDisabled(u.byID("btn-zoom-in"), z == scenarios.ZoomSM)
		} else {
			zc.SetAttribute("hidden", "")
		}
	}

	u.refreshClock()
	u.refreshKnobs(s, st, lang)
	u.refreshQuestion(p, lang)
	u.refreshMetrics(p, lang)
	u.refreshError(p, lang)
}

// refreshClock moves the timeline and the time label to the playhead; it
// runs every tick while playing, so it touches only those two.
func (u *ui) refreshClock() {
	p := u.a.player
	end := p.Run().End()
	// A step without a time line (a chart, a still picture) hides the
	// timeline rather than showing "0 ps / 0 ps".
	sr := p.StepRun()
	if f := document.Call("querySelector", ".field-timeline"); f.Truthy() {
		f.Get("classList").Call("toggle", "hidden", end == 0 || sr.From == sr.To)
	}
	if tl := byID("timeline"); tl != nil && !u.scrub && end > 0 {
		setValue(tl, strconv.Itoa(int(1000*float64(p.Time())/float64(end))))
	}
	lang := p.State().Lang
	setText(byID("time-label"), i18n.T(lang, "ui.time", "t", scenarios.TimeText(lang, p.Time())+" / "+scenarios.TimeText(lang, end)))
	// The live numbers above the table (for a collective: the elapsed time
	// and the bytes sent so far).
	if live := byID("live"); live != nil {
		live.SetTextContent(p.Lesson().Live(p.State().Step, p.Time(), lang))
	}
}

// refreshKnobs builds one labelled control per knob when the lesson, the
// step's hidden knobs or the language change, and otherwise only updates
// their values.
func (u *ui) refreshKnobs(s *scenarios.Scenario, st scenarios.State, lang string) {
	knobs := byID("knobs")
	if knobs == nil {
		return
	}
	hide := s.HiddenKnobs(st.Step, st.Config)
	hidden := map[string]bool{}
	for _, h := range hide {
		hidden[h] = true
	}
	key := s.ID + "|" + lang + "|" + strings.Join(hide, ",")
	if key != u.knobFor {
		u.knobFor = key
		knobs.SetInnerHTML("")
		for _, k := range s.Knobs {
			if hidden[k.Name] {
				continue
			}
			appendChild(knobs, u.knobControl(k, lang))
		}
	}
	for _, k := range s.Knobs {
		el := u.byID("knob-" + k.Name)
		if el == nil {
			continue
		}
		v := st.Config[k.Name]
		if k.Kind == scenarios.KnobBytes {
			u.ensureOption(el, v, lang)
		}
		setValue(el, v)
		if out := u.byID("knob-" + k.Name + "-value"); out != nil {
			out.SetTextContent(k.ValueText(lang, v))
		}
	}
}

// knobControl is the knob's control (page.Knob), re-running the engine
// as it changes: a dragged slider fires many input events a frame, and
// the engine re-runs once per tick with the latest value (app.Update).
func (u *ui) knobControl(k scenarios.Knob, lang string) *dom.BasicHTMLElement {
	wrap := element(mount(page.Knob(k, lang)))
	ctl := element(wrap.Underlying().Call("querySelector", "#knob-"+k.Name))
	evType := "change"
	if k.Kind == scenarios.KnobInt {
		evType = "input"
	}
	listen(ctl.Underlying(), evType, false, func(js.Value) {
		u.a.mu.Lock()
		defer u.a.mu.Unlock()
		u.a.pendingKnob[k.Name] = value(ctl)
	})
	return wrap
}

func (u *ui) option(v, text string) *dom.BasicHTMLElement {
	return element(mount(page.Option(v, text)))
}

func (u *ui) ensureOption(sel *dom.BasicHTMLElement, v, lang string) {
	for _, o := range queryAll(sel.Underlying(), "option") {
		if o.GetAttribute("value") == v {
			return
		}
	}
	n, _ := strconv.ParseInt(v, 10, 64)
	appendChild(sel, u.option(v, scenarios.BytesLabel(n)))
}

// refreshQuestion shows the step's prediction question (page.Question),
// or hides its box.
func (u *ui) refreshQuestion(p *scenarios.Player, lang string) {
	box := byID("predict")
	if box == nil {
		return
	}
	q, ok := p.Question()
	if !ok {
		box.SetAttribute("hidden", "")
		box.SetInnerHTML("")
		u.asked, u.answered = "", false
		return
	}
	box.RemoveAttribute("hidden")
	v := box.Underlying()
	top := v.Get("scrollTop")
	mountAll("predict", page.Question(q, lang))
	// Where the box scrolls (a short embed puts it in a column beside the
	// picture: style.css), a verdict just given comes into view, and a
	// question redrawn keeps where the reader scrolled it.
	same := q.Prompt == u.asked
	switch {
	case q.Answered && (!same || !u.answered):
		// The verdict's top at the box's top, or as near as the box
		// scrolls: the choices above it stay in view when there is room.
		if r := v.Call("querySelector", ".reveal"); r.Truthy() {
			dy := r.Call("getBoundingClientRect").Get("top").Float() - v.Call("getBoundingClientRect").Get("top").Float() - v.Get("clientTop").Float()
			v.Set("scrollTop", v.Get("scrollTop").Float()+dy)
		}
	case same:
		v.Set("scrollTop", top)
	}
	u.asked, u.answered = q.Prompt, q.Answered
}

// refreshMetrics writes the numbers panel (page.Numbers).
func (u *ui) refreshMetrics(p *scenarios.Player, lang string) {
	if mountAll("metrics", page.Numbers(p, lang)) {
		u.refreshClock()
	}
}

func (u *ui) refreshError(p *scenarios.Player, lang string) {
	box := byID("error")
	if box == nil {
		return
	}
	msg := p.ErrorText(lang)
	box.SetTextContent(msg)
	if msg == "" {
		box.Class().Add("hidden")
	} else {
		box.Class().Remove("hidden")
	}
}

func setText(el *dom.BasicHTMLElement, s string) {
	if el != nil {
		el.SetTextContent(s)
	}
}

func setValue(el *dom.BasicHTMLElement, v string) {
	if el != nil && value(el) != v {
		el.Underlying().Set("value", v)
	}
}

func setDisabled(el *dom.BasicHTMLElement, d bool) {
	if el != nil {
		el.Underlying().Set("disabled", d)
	}
}

// zoomBy zooms in (d = 1) or out (−1) a level, in a lesson with the
// zoom; the moment stays. Call with the player locked.
func (u *ui) zoomBy(d int) {
	p := u.a.player
	if !p.Scenario().Zooms() {
		return
	}
	_ = p.Command([]byte(`{"type":"zoom","delta":` + strconv.Itoa(d) + `}`))
}
