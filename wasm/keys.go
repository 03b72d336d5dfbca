//go:build js && wasm

package main

import (
	"strconv"
	"strings"
	"syscall/js"

	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// presentScale enlarges the picture's lines and labels in presentation
// mode (issue 8: readable from the back of a classroom).
const presentScale = 1.5

// Keyboard help and the embed's focus hint (issue 7). Ebitengine does not
// take focus inside an iframe and the page's keys (Space, arrows,
// Home/End, handled in ui.go) reach a frame only once it has focus: an
// embedded frame without focus says so over its picture ("Click or press
// Enter to interact"); a click anywhere, or Enter on the hint, gives it
// focus. "?" shows the keys.

// bindKeys wires the focus hint and the help panel.
func (u *ui) bindKeys() {
	framed := !window.Get("parent").Equal(window)
	hint := byID("focus-hint")
	if hint != nil && framed {
		show := func(on bool) {
			if on {
				hint.RemoveAttribute("hidden")
			} else {
				hint.SetAttribute("hidden", "")
			}
		}
		show(!document.Call("hasFocus").Bool())
		listen(window, "blur", false, func(js.Value) {
			u.a.mu.Lock()
			u.scrub = false // a drag of the timeline ends with the focus
			u.a.mu.Unlock()
			show(true)
		})
		listen(window, "focus", false, func(js.Value) { show(false) })
		listen(hint.Underlying(), "click", false, func(js.Value) {
			show(false)
			document.Get("body").Call("focus")
		})
	}
	if b := byID("btn-present"); b != nil {
		listen(b.Underlying(), "click", false, func(js.Value) {
			u.a.mu.Lock()
			defer u.a.mu.Unlock()
			u.togglePresent()
		})
	}
	listen(document, "keydown", false, func(e js.Value) {
		key := e.Get("key").String()
		help := byID("key-help")
		u.a.mu.Lock()
		defer u.a.mu.Unlock()
		switch {
		case key == "?" && !typing(e):
			u.toggleHelp(help == nil || help.HasAttribute("hidden"))
		case key == "Escape" && help != nil && !help.HasAttribute("hidden"):
			u.toggleHelp(false)
		case (key == "f" || key == "F") && !typing(e) && !e.Get("ctrlKey").Bool() && !e.Get("metaKey").Bool():
			toggleFullscreen()
		case (key == "p" || key == "P") && !typing(e) && !e.Get("ctrlKey").Bool() && !e.Get("metaKey").Bool():
			u.togglePresent()
		case (key == "+" || key == "=") && !typing(e) && !e.Get("ctrlKey").Bool() && !e.Get("metaKey").Bool():
			u.zoomBy(1)
		case (key == "-" || key == "_") && !typing(e) && !e.Get("ctrlKey").Bool() && !e.Get("metaKey").Bool():
			u.zoomBy(-1)
		default:
			return
		}
		e.Call("preventDefault")
	})
}

// typing reports whether a key event's target is a text control.
func typing(e js.Value) bool {
	t := e.Get("target")
	if !t.Truthy() || t.Get("tagName").Type() != js.TypeString {
		return false
	}
	switch t.Get("tagName").String() {
	case "INPUT", "SELECT", "TEXTAREA":
		return true
	}
	return false
}

// toggleHelp shows or hides the list of keys, built in the reader's
// language each time it opens.
func (u *ui) toggleHelp(on bool) {
	help := byID("key-help")
	if help == nil {
		help = create("div")
		help.SetAttribute("id", "key-help")
		help.SetAttribute("class", "key-help")
		help.SetAttribute("role", "dialog")
		help.SetAttribute("aria-labelledby", "key-help-title")
		appendChild(element(document.Get("body")), help)
	}
	if !on {
		help.SetAttribute("hidden", "")
		return
	}
	lang := u.a.player.State().Lang
	help.SetInnerHTML("")
	title := create("h2")
	title.SetAttribute("id", "key-help-title")
	title.SetTextContent(i18n.T(lang, "ui.keys_title"))
	appendChild(help, title)
	list := create("dl")
	for _, k := range [][2]string{
		{"ui.key_space", "ui.keys_space"}, {"← →", "ui.keys_arrows"}, {"Home End", "ui.keys_home_end"}, {"+ −", "ui.keys_zoom"}, {"?", "ui.keys_help"}, {"Esc", "ui.keys_close"},
	} {
		dt := create("dt")
		kbd := create("kbd")
		if strings.HasPrefix(k[0], "ui.") {
			k[0] = i18n.T(lang, k[0]) // a key's name that has a word in the reader's language
		}
		kbd.SetTextContent(k[0])
		appendChild(dt, kbd)
		dd := create("dd")
		dd.SetTextContent(i18n.T(lang, k[1]))
		appendChild(list, dt)
		appendChild(list, dd)
	}
	appendChild(help, list)
	help.RemoveAttribute("hidden")
}

// ignore is a promise rejection handler that does nothing.
var ignore = js.FuncOf(func(js.Value, []js.Value) any { return nil })

// toggleFullscreen puts the whole page in full screen, or leaves it.
func toggleFullscreen() {
	if document.Get("fullscreenElement").Truthy() {
		document.Call("exitFullscreen")
		return
	}
	if el := document.Get("documentElement"); el.Get("requestFullscreen").Truthy() {
		p := el.Call("requestFullscreen")
		if p.Truthy() && p.Get("catch").Truthy() {
			p.Call("catch", ignore) // refused (no user gesture): stay as we are
		}
	}
}

// togglePresent turns presentation mode on or off (present=1 in the
// fragment, so the link keeps it), entering full screen with it.
func (u *ui) togglePresent() {
	on := !u.a.player.State().Embed.Present
	v := "0"
	if on {
		v = "1"
	}
	u.a.player.Set("present", v)
	if on != document.Get("fullscreenElement").Truthy() {
		toggleFullscreen()
	}
}

// fitCaptions shrinks presentation mode's captions until the step's words
// fit their band under the picture (at most 30% of the screen: style.css),
// from 1 em down to 0.5 em: nothing is ever cut off.
func fitCaptions() {
	panel := document.Call("getElementById", "panel")
	if !panel.Truthy() {
		return
	}
	narration := document.Call("getElementById", "narration")
	fits := func(el js.Value) bool { return el.Get("scrollHeight").Int() <= el.Get("clientHeight").Int()+1 }
	style := panel.Get("style")
	for size := 100; size >= 50; size -= 5 {
		style.Call("setProperty", "--caption-size", strconv.Itoa(size)+"%")
		if fits(panel) && (!narration.Truthy() || fits(narration)) {
			return
		}
	}
}

// describe puts the words for the picture in the live region when they
// changed (per step or setting, never per frame), and shows presentation
// mode's state on its button.
func (a *app) describe() {
	if d := byID("describe"); d != nil {
		if text := a.player.Description(); text != a.em.described {
			a.em.described = text
			d.SetTextContent(text)
		}
	}
	if b := byID("btn-present"); b != nil {
		b.SetAttribute("aria-pressed", strconv.FormatBool(a.present))
	}
}

// quietCanvas takes Ebiten's canvas out of the tab order and the
// accessibility tree: Ebiten gives it tabindex=1 (a positive tabindex
// reorders every page's Tab sequence), and it is a picture whose words are
// in #describe. The page's keys work on the document, so the canvas never
// needs focus.
func quietCanvas() {
	if c := document.Call("querySelector", "body > canvas"); c.Truthy() {
		c.Call("setAttribute", "tabindex", "-1")
		c.Call("setAttribute", "aria-hidden", "true")
	}
}
