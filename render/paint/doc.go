// Package paint draws a display list (render/draw's List, as package
// render builds it) on an Ebiten image. It is the only render code that
// imports Ebiten, and it decides nothing: what to draw, and where, was
// settled by the builder in package render.
//
// Coordinates are device pixels, origin at the top left; colours are
// non-premultiplied sRGB and are blended in sRGB, as a browser blends CSS
// colours.
//
// Everything is drawn by one small Kage shader, one quad per shape or
// glyph, so a whole display list (interleaved shapes and labels included)
// goes to the GPU as one DrawTrianglesShader call, split only every 16,384
// quads. Shapes (filled and stroked rectangles, filled circles, lines with
// butt caps, as Ebiten's vector package draws them) are anti-aliased
// analytically: the shader turns the signed distance from the shape's edge
// into pixel coverage, so an edge on a pixel boundary is crisp and a 1 px
// line at a whole coordinate covers two pixels at half strength (put it at
// .5 to get one). Strokes and shapes narrower than a pixel are drawn one
// pixel wide with their alpha scaled by the width, so hairlines fade rather
// than flicker. (Ebiten's vector package with AntiAlias draws into a
// double-size offscreen that is composited back each time a plain draw,
// such as a glyph, follows: once per label in our pictures.)
//
// Text is drawn with render/font's subset of Go Regular (golang.org/x/
// image/font/gofont), advancing by render/font's metrics, which the
// builders measure with. Glyphs are rasterised by x/image once per rune,
// size and quarter-pixel offset into a 1024×1024 atlas (emptied and
// refilled if it ever fills up); there is one face per whole pixel size,
// and sizes are clamped to 8..96. A text item's (X, Y) is the top of its
// line box (the baseline is the font's ascent, 0.945 em rounded to a
// pixel, below it; the line box is 1.156 em tall) and Align says whether X
// is the line's left end, centre or right end. The pen moves by the
// font's fractional advances; each glyph is drawn on whole pixels from
// the nearest quarter-pixel variant, so labels stay sharp and evenly
// spaced.
//
// Chinese is not in the embedded font. A CJK rune it lacks
// (render/font.Fallback) is drawn by the browser: white on a 2D canvas of
// the page's own, in the first of Noto Sans CJK SC, Source Han Sans SC,
// WenQuanYi Micro Hei, PingFang SC, Microsoft YaHei or sans-serif it has,
// at the face's size, centred in a cell exactly one em wide on the font's
// baseline; its alpha goes into the same atlas, cached the same way, on
// whole pixels. That file (browser.go) is the painter's only use of
// syscall/js.
//
// A Painter keeps its buffers between frames, so painting a list of the
// same shape as the previous frame's allocates nothing per item. It also
// keeps a layer: an offscreen image, the canvas's size, holding the first
// items of a long list (1,500 or more, and half the list or more) that
// two successive frames had in common, painted on transparent. While the
// lists begin with those items (compared with ==) and the canvas's size
// and background stay, a frame is the background, the layer, and the
// items after it; otherwise the layer is repainted from the new common
// beginning, or the list is painted directly (prefix.go decides, and is
// tested natively). The dense pictures draw what does not move first for
// this. Source-over is associative, so a frame differs from one painted
// item by item only by the layer's 8-bit rounding; the layer is already
// rasterised, so emptying the glyph atlas does not touch it, and it is
// deallocated when the canvas changes size. Draw uses
// one package Painter and, like all Ebiten drawing, must be called from the
// game's Draw.
//
// The painter builds only for GOOS=js (the simulator runs in the browser):
// a native Ebiten build needs cgo and X11 headers, and the tag keeps
// go vet ./... and go test ./... working natively.
package paint
