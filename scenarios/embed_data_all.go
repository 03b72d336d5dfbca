//go:build !i18nfetch

package scenarios

import "embed"

// The scenario files, embedded: the CLI, the tests and any build without
// the i18nfetch tag.
//
//go:embed data/*.scn data/curriculum.txt
var dataFS embed.FS
