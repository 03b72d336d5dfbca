//go:build i18nfetch

package i18n

import "embed"

// With the i18nfetch tag (main.wasm, built by make wasm) only English is
// embedded: it is the fallback, and the scenarios check their keys
// against it when they load. The other catalogues come from the page
// (Load, SetSource), so a reader downloads only the language they read.
//
//go:embed en.txt
var files embed.FS

const fetched = true
