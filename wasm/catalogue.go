//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	"github.com/gpuscope/gpuscope/scenarios/i18n"
)

// useFetchedCatalogues gives scenarios/i18n the catalogues main.wasm does
// not embed (make wasm builds it with -tags i18nfetch: all but English).
// site/loader.js fetches the reader's language before it starts the wasm,
// and any other when the reader reaches for the language picker, into
// window.gpuscopeI18n = {base: "i18n/", texts: {LANG: text}}. A language
// asked for before its text has arrived is fetched there and then,
// synchronously, from base + LANG.txt; if that fails too the language
// stays English, with a console warning. Without the tag every catalogue
// is embedded and this source is never asked.
func useFetchedCatalogues() {
	i18n.SetSource(pageCatalogue)
}

func pageCatalogue(lang string) (text string, err error) {
	defer func() {
		if r := recover(); r != nil { // a JS exception (network error)
			err = fmt.Errorf("%v", r)
		}
		if err != nil {
			js.Global().Get("console").Call("warn", "gpuscope: no "+lang+" catalogue ("+err.Error()+"); showing English")
		}
	}()
	base := "i18n/"
	if g := js.Global().Get("gpuscopeI18n"); g.Type() == js.TypeObject {
		if t := g.Get("texts"); t.Type() == js.TypeObject {
			if v := t.Get(lang); v.Type() == js.TypeString {
				return v.String(), nil
			}
		}
		if b := g.Get("base"); b.Type() == js.TypeString {
			base = b.String()
		}
	}
	xhr := js.Global().Get("XMLHttpRequest").New()
	xhr.Call("open", "GET", base+lang+".txt", false)
	xhr.Call("send")
	if st := xhr.Get("status").Int(); st != 200 {
		return "", fmt.Errorf("%s%s.txt: HTTP %d", base, lang, st)
	}
	return xhr.Get("responseText").String(), nil
}
