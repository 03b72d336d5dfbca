//go:build js && wasm

package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"syscall/js"

	"github.com/gpuscope/gpuscope/engine/tinyjson"
	"github.com/gpuscope/gpuscope/scenarios"
)

// embedding is the page's side of issue 7's embed contract: the fragment's
// embed options applied to the page (hidden parts, theme, motion,
// autoplay), and the opt-in postMessage API — commands in from the parent
// pages on the fragment's allow-list, events out to them.
type embedding struct {
	applied       string // the options (and system preferences) last applied
	systemDark    bool
	systemReduced bool
	autoplayed    bool
	postedStep    string // scenario/step of the last step event
	height        int    // the last height a resize event reported
	parent        string // the parent page's origin once known, else ""
	described     string // the live region's text
}

// startEmbedding reads the reader's system preferences, follows their
// changes and listens for the parent's messages. Call once, under a.mu or
// before the game runs.
func (a *app) startEmbedding() {
	light := window.Call("matchMedia", "(prefers-color-scheme: light)")
	reduce := window.Call("matchMedia", "(prefers-reduced-motion: reduce)")
	a.em.systemDark = !light.Get("matches").Bool()
	a.em.systemReduced = reduce.Get("matches").Bool()
	listen(light, "change", false, func(e js.Value) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.em.systemDark = !e.Get("matches").Bool()
		a.applyEmbed()
	})
	listen(reduce, "change", false, func(e js.Value) {
		a.mu.Lock()
		defer a.mu.Unlock()
		a.em.systemReduced = e.Get("matches").Bool()
		a.applyEmbed()
	})
	listen(window, "message", false, a.onMessage)
	a.applyEmbed()
}

// applyEmbed brings the page in line with the fragment's embed options;
// it touches the DOM only when they (or the system's preferences) changed.
func (a *app) applyEmbed() {
	e := a.player.State().Embed
	key := fmt.Sprint(e.Hide, e.Theme, e.Motion, e.Present, a.em.systemDark, a.em.systemReduced)
	if key == a.em.applied {
		return
	}
	a.em.applied = key
	root := document.Get("documentElement")
	classes := root.Get("classList")
	for _, part := range scenarios.HideParts {
		classes.Call("toggle", "hide-"+part, e.Hidden(part))
	}
	classes.Call("toggle", "present", e.Present)
	a.present = e.Present
	if e.Theme != "" {
		root.Call("setAttribute", "data-theme", e.Theme)
	} else {
		root.Call("removeAttribute", "data-theme")
	}
	a.dark = e.Theme == "dark" || e.Theme == "" && a.em.systemDark
	a.player.SetReducedMotion(e.Motion == "reduced" || e.Motion == "" && a.em.systemReduced)
	a.stageDirty = true
}

// onMessage takes a command from a parent page: only from an origin on
// the fragment's allow-list, only in the protocol's envelope; anything
// else is ignored with a warning on the console.
func (a *app) onMessage(ev js.Value) {
	origin := ev.Get("origin").String()
	a.mu.Lock()
	defer a.mu.Unlock()
	emb := a.player.State().Embed
	if emb.Allowed(origin) && ev.Get("source").Equal(window.Get("parent")) {
		a.em.parent = origin
	}
	if !emb.Allowed(origin) {
		if len(emb.Origins) == 0 {
			warn("gpuscope: ignored a message from " + origin + ": the postMessage API is off (add origins=" + origin + " to the frame's URL fragment)")
		} else {
			warn("gpuscope: ignored a message from " + origin + ": not in origins (" + strings.Join(emb.Origins, ", ") + ")")
		}
		return
	}
	raw, ok := messageJSON(ev.Get("data"))
	if !ok {
		warn("gpuscope: ignored a message from " + origin + ": not an object such as {version: 1, type: \"play\"}")
		return
	}
	typ, cmd, err := scenarios.ParseMessage([]byte(raw))
	if err != nil {
		warn("gpuscope: ignored a message from " + origin + ": " + err.Error())
		return
	}
	switch typ {
	case "load": // already loaded
	case "state":
		a.post(a.event("state"))
	default:
		if err := a.player.Command(cmd); err != nil {
			msg := err.Localize(a.player.State().Lang)
			warn("gpuscope: " + msg)
			out := scenarios.NewEvent("error")
			out.Error = msg
			a.post(out)
		}
	}
}

// messageJSON is a message's data as JSON: objects only (a structured
// clone may hold cycles or BigInts, which JSON.stringify throws on).
func messageJSON(data js.Value) (s string, ok bool) {
	if data.Type() != js.TypeObject || data.IsNull() || js.Global().Get("Array").Call("isArray", data).Bool() {
		return "", false
	}
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	v := js.Global().Get("JSON").Call("stringify", data)
	if v.Type() != js.TypeString {
		return "", false
	}
	return v.String(), true
}

func warn(msg string) { js.Global().Get("console").Call("warn", msg) }

// event is an event of type typ carrying the player's state.
func (a *app) event(typ string) scenarios.Event {
	e := scenarios.NewEvent(typ)
	st := a.player.Report()
	e.State = &st
	e.Step = st.Step
	return e
}

// post sends an event (a scenarios.Event or AnswerEvent) to the parent
// page, addressed to its origin when that is on the allow-list (never to
// "*"). The parent's origin comes from location.ancestorOrigins, else the
// referrer, else the last allowed message; when none is known, each
// allowed origin is tried in turn (the browser delivers only where the
// parent's origin matches).
func (a *app) post(e any) {
	emb := a.player.State().Embed
	parent := window.Get("parent")
	if len(emb.Origins) == 0 || !parent.Truthy() || parent.Equal(window) {
		return
	}
	targets := emb.Origins
	if p := a.parentOrigin(); emb.Allowed(p) {
		targets = []string{p}
	}
	b, err := tinyjson.Marshal(e)
	if err != nil {
		return
	}
	msg := js.Global().Get("JSON").Call("parse", string(b))
	for _, o := range targets {
		parent.Call("postMessage", msg, o)
	}
}

// parentOrigin is the embedding page's origin, "" when unknown.
func (a *app) parentOrigin() string {
	if a.em.parent != "" {
		return a.em.parent
	}
	if anc := window.Get("location").Get("ancestorOrigins"); anc.Truthy() && anc.Length() > 0 {
		if o, ok := scenarios.CanonicalOrigin(anc.Index(0).String()); ok {
			a.em.parent = o
			return o
		}
	}
	if ref := document.Get("referrer").String(); ref != "" {
		if scheme, rest, ok := strings.Cut(ref, "://"); ok {
			host, _, _ := strings.Cut(rest, "/")
			if o, ok := scenarios.CanonicalOrigin(scheme + "://" + host); ok {
				a.em.parent = o
				return o
			}
		}
	}
	return ""
}

// embedTick runs once per tick after the page's text is up to date: it
// reports the changes to the parent page and starts an autoplay.
func (a *app) embedTick(changed bool, events []string) {
	if a.ready && !a.em.autoplayed {
		a.em.autoplayed = true
		if a.player.State().Embed.Autoplay && !a.player.Playing() {
			a.player.Play()
		}
	}
	if slices.Contains(events, scenarios.EventFinished) {
		a.post(a.event("finished"))
	}
	// Issue 41: each answer to a prediction, once, stamped with its time.
	for _, ans := range a.player.TakeAnswers() {
		ans.Time = int64(js.Global().Get("Date").Call("now").Float())
		a.ui.dispatch("answer")
		a.post(ans)
	}
	if changed && a.drawn {
		a.applyEmbed()
		a.describe()
	}
	if !a.ready || !changed && !a.stageDirty {
		return
	}
	if h := a.wantedHeight(); h > 0 && h != a.em.height {
		a.em.height = h
		e := scenarios.NewEvent("resize")
		e.Height = h
		a.post(e)
	}
	if !changed {
		return
	}
	st := a.player.State()
	if at := stepKey(st); at != a.em.postedStep {
		a.em.postedStep = at
		a.post(a.event("step"))
	}
	a.post(a.event("state"))
}

// wantedHeight is the height, in CSS pixels, at which the embed page shows
// its text without squeezing the picture: the header and the bar as laid
// out now, plus a 16:9 picture across the frame's width (within 240–900
// px). Pages other than the embed page report 0 (no resize events).
func (a *app) wantedHeight() int {
	if !document.Get("body").Get("classList").Call("contains", "page-embed").Bool() {
		return 0
	}
	h := 0.0
	if panel := document.Call("getElementById", "panel"); panel.Truthy() {
		if ph := panel.Get("offsetHeight").Float(); ph > 0 {
			h += ph
		} else {
			// A short frame's question step lays the bar's rows out in
			// the page's grid (display: contents, style.css): the bar
			// has no box, its rows do — the question's among them, as
			// a taller frame stacks it.
			kids := panel.Get("children")
			for i := 0; i < kids.Length(); i++ {
				h += kids.Index(i).Get("offsetHeight").Float()
			}
		}
	}
	if head := document.Call("querySelector", ".embed-head"); head.Truthy() {
		h += head.Get("offsetHeight").Float()
	}
	w := window.Get("innerWidth").Float()
	return int(math.Round(h + math.Max(240, math.Min(900, w*9/16))))
}

// stepKey names the lesson's step, to tell when a step event is due.
func stepKey(st scenarios.State) string { return st.Scenario + "/" + fmt.Sprint(st.Step) }
