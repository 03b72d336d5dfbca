// Package font is the canvas's font: a subset of Go Regular
// (golang.org/x/image/font/gofont) and its metrics, in pure Go, so that the
// display-list builders (package render) measure labels exactly as the
// painter (package render/paint) draws them.
//
// # The subset
//
// TTF holds printable ASCII, the typographic characters in subset.Extra
// and every other rune outside ASCII that a builder's string literal or a
// catalogue (scenarios/i18n) holds, less the CJK runes (below) and the
// few Go Regular lacks (subset.Absent). Advances and outlines are Go
// Regular's; runes not kept are absent from its cmap. `go generate
// ./render/font` (or `make font`) regenerates goregular-subset.ttf and
// runes.go from the sources; a test fails when they are stale or when a
// source holds a rune the canvas cannot draw.
//
// # Sizes and units
//
// Sizes are pixels per em. The painter has one face per whole pixel size
// from MinSize to MaxSize, so every function here first rounds and clamps
// a size as the painter does (Size). Advances are those of
// golang.org/x/image/font/opentype at 72 DPI without hinting: 26.6 fixed
// point (AdvanceFixed), or the same value as a float32 (Advance). Go
// Regular has no kerning, so a string's width is the sum of its advances.
//
// # CJK
//
// Chinese text is not in the subset (a CJK font would cost 100 KB or
// more). A rune that the subset lacks and IsCJK reports is drawn by the
// browser, centred in a cell exactly one em wide, and measured here as
// one em. Any other rune the subset lacks draws Go Regular's .notdef box
// and advances by its width.
package font
