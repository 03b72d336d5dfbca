//go:build js && wasm

package main

import (
	"syscall/js"

	"honnef.co/go/js/dom/v2"

	"github.com/gpuscope/gpuscope/page"
)

// Elements are honnef.co/go/js/dom/v2's *BasicHTMLElement, built directly
// around the js.Value rather than through dom's Document methods or its
// event wrappers. Those return dom's interfaces, whose type switches reach
// every element and event type dom defines; Ebiten links text/template,
// whose use of reflection keeps every exported method of every reachable
// type, so going through them grows main.wasm by ~16 MB raw (~1.4 MB gzip)
// and breaks the 3.5 MB budget. Events arrive as plain js.Values.

var (
	window   = js.Global()
	document = js.Global().Get("document")
)

// element wraps v; nil for null or undefined.
func element(v js.Value) *dom.BasicHTMLElement {
	if v.IsNull() || v.IsUndefined() {
		return nil
	}
	return &dom.BasicHTMLElement{BasicElement: &dom.BasicElement{BasicNode: &dom.BasicNode{Value: v}}}
}

func byID(id string) *dom.BasicHTMLElement {
	return element(document.Call("getElementById", id))
}

func create(tag string) *dom.BasicHTMLElement {
	return element(document.Call("createElement", tag))
}

func queryAll(root js.Value, selector string) []*dom.BasicHTMLElement {
	list := root.Call("querySelectorAll", selector)
	out := make([]*dom.BasicHTMLElement, list.Length())
	for i := range out {
		out[i] = element(list.Index(i))
	}
	return out
}

// listen calls f for every typ event on target, and asks for a frame
// (wake: the event may have changed the lesson). The js.Func lives as
// long as the page.
func listen(target js.Value, typ string, capture bool, f func(ev js.Value)) {
	target.Call("addEventListener", typ, js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			f(args[0])
		}
		wake()
		return nil
	}), capture)
}

func value(el *dom.BasicHTMLElement) string {
	return el.Underlying().Get("value").String()
}

// appendChild is parent.appendChild(child) without passing child through
// dom's Node interface (see the note at the top of this file).
func appendChild(parent, child *dom.BasicHTMLElement) {
	parent.Underlying().Call("appendChild", child.Underlying())
}

// mount builds n as a DOM element: its attributes, its text (as text),
// then its children.
func mount(n page.Node) js.Value {
	el := document.Call("createElement", n.Tag)
	for i := 0; i+1 < len(n.Attrs); i += 2 {
		el.Call("setAttribute", n.Attrs[i], n.Attrs[i+1])
	}
	if n.Text != "" {
		el.Set("textContent", n.Text)
	}
	for _, k := range n.Kids {
		el.Call("appendChild", mount(k))
	}
	return el
}

// mountAll replaces the children of the element id with nodes; false if
// there is no such element.
func mountAll(id string, nodes []page.Node) bool {
	parent := document.Call("getElementById", id)
	if !parent.Truthy() {
		return false
	}
	parent.Set("textContent", "")
	for _, n := range nodes {
		parent.Call("appendChild", mount(n))
	}
	return true
}
