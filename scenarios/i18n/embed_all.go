//go:build !i18nfetch

package i18n

import "embed"

// Every catalogue is embedded: the CLI, the tests and any build without
// the i18nfetch tag.
//
//go:embed en.txt zh.txt
var files embed.FS

// fetched is true when the catalogues other than English are not
// embedded (the i18nfetch tag).
const fetched = false
