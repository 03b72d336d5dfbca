//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/gpuscope/gpuscope/scenarios"
)

// publishAPI sets window.gpuscope: ready, state(), command(), scenarios().
// Values cross the boundary as JSON so that the names are exactly those of
// the Go structs' tags — the same names the CLI prints.
func (a *app) publishAPI() {
	parse := js.Global().Get("JSON").Get("parse")
	stringify := js.Global().Get("JSON").Get("stringify")
	api := js.Global().Get("Object").New()
	api.Set("version", 1)
	api.Set("ready", false)
	api.Set("state", js.FuncOf(func(js.Value, []js.Value) any {
		return parse.Invoke(a.stateJSON())
	}))
	api.Set("command", js.FuncOf(func(_ js.Value, args []js.Value) any {
		res := js.Global().Get("Object").New()
		if len(args) < 1 || args[0].Type() != js.TypeObject || args[0].IsNull() {
			res.Set("ok", false)
			res.Set("error", "command: expected an object such as {type: \"play\"}")
			return res
		}
		raw := stringify.Invoke(args[0]).String()
		a.mu.Lock()
		err := a.player.Command([]byte(raw))
		lang := a.player.State().Lang
		a.mu.Unlock()
		wake()
		res.Set("ok", err == nil)
		if err != nil {
			res.Set("error", err.Localize(lang))
		} else {
			res.Set("error", js.Null())
		}
		return res
	}))
	api.Set("scenarios", js.FuncOf(func(js.Value, []js.Value) any {
		ids := scenarios.IDs()
		out := make([]any, len(ids))
		for i, id := range ids {
			out[i] = id
		}
		return js.ValueOf(out)
	}))
	js.Global().Set("gpuscope", api)
}
