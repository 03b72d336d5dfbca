// Package draw is the floor every picture of package render builds on:
// the display list (List, Item, Color, Rect) and its themes, the one
// text measure (TextWidth), fitter (Fit) and wrapper (Lines, and Wrap2
// its two-line view), the label placer, the legend and the
// headline, axis steps and labels, and the per-run caches (Memo) that
// let a picture redrawn every frame format each label once.
//
// A picture file in package render holds its own picture only; what two
// pictures share lives here. Nothing here knows a lesson.
//
// Coordinates are device pixels with the origin at the top left; text
// sizes are pixels per em (render/font), and sizes of text and strokes
// are multiplied by the view's scale (the device pixel ratio).
package draw
