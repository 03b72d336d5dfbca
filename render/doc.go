// Package render turns engine state at a playhead time into pictures.
//
// It has two halves (STYLE.md §5). The builder — this package — is pure Go:
// from an engine snapshot and a stage rectangle it makes a display list, a
// flat list of rectangles, circles, lines and short Latin labels in device
// pixels, and tests compare its text form with golden files. The painter —
// package render/paint — is the only code that imports Ebiten: it draws a
// display list and nothing else, so what is drawn is decided here, where it
// can be tested without a GPU or a window.
//
// Coordinates are device pixels with the origin at the top left; sizes of
// text and strokes are multiplied by the view's Scale (the device pixel
// ratio) so a picture reads the same on a phone and on a projector.
package render
