// Command gen writes render/font's goregular-subset.ttf and runes.go:
// Go Regular cut down to the runes the canvas draws (subset.Runes, from
// subset.Scan of the sources), leaving CJK runes to the browser.
// `go generate ./render/font` runs it in render/font. It does not import
// render/font, which embeds its output.
package main

import (
	"fmt"
	"os"

	"github.com/gpuscope/gpuscope/render/font/internal/subset"
)

func main() {
	ttf, src, err := subset.Generate("../..", subset.IsCJK)
	if err == nil {
		err = os.WriteFile(subset.FontFile, ttf, 0o644)
	}
	if err == nil {
		err = os.WriteFile(subset.RunesFile, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "render/font/internal/gen:", err)
		os.Exit(1)
	}
	fmt.Printf("render/font: %s, %d bytes (Go Regular: %d)\n", subset.FontFile, len(ttf), len(subset.GoRegular()))
}
