//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"github.com/gpuscope/gpuscope/scenarios"
)

// loadScenarios hands scenarios the lesson files main.wasm does not
// embed (make wasm builds it with -tags i18nfetch): site/loader.js
// fetches scenarios.txt beside main.wasm into window.gpuscopeScenarios
// before the wasm starts; if it is not there (a page without the
// loader), it is fetched there and then, synchronously.
func loadScenarios() error {
	text := ""
	if v := js.Global().Get("gpuscopeScenarios"); v.Type() == js.TypeString {
		text = v.String()
	} else {
		var err error
		if text, err = fetchText("scenarios.txt"); err != nil {
			return err
		}
	}
	return scenarios.LoadBundle(text)
}

func fetchText(url string) (text string, err error) {
	defer func() {
		if r := recover(); r != nil { // a JS exception (network error)
			err = fmt.Errorf("%s: %v", url, r)
		}
	}()
	xhr := js.Global().Get("XMLHttpRequest").New()
	xhr.Call("open", "GET", url, false)
	xhr.Call("send")
	if st := xhr.Get("status").Int(); st != 200 {
		return "", fmt.Errorf("%s: HTTP %d", url, st)
	}
	return xhr.Get("responseText").String(), nil
}
