package render

import "github.com/gpuscope/gpuscope/render/draw"

// The display list and its theme live in package render/draw, the floor
// every picture here builds on. These names keep them reachable as
// render.List, render.Color and so on for the packages that show
// pictures (scene, wasm) and their tests.

// Display list types (see package draw).
type (
	Color       = draw.Color
	Kind        = draw.Kind
	Align       = draw.Align
	Item        = draw.Item
	List        = draw.List
	Hit         = draw.Hit
	Key         = draw.Key
	Rect        = draw.Rect
	Words       = draw.Words
	Theme       = draw.Theme
	LegendEntry = draw.LegendEntry
)

// Item kinds, alignments and the line box (see package draw).
const (
	FillRect   = draw.FillRect
	StrokeRect = draw.StrokeRect
	FillCircle = draw.FillCircle
	Line       = draw.Line
	Text       = draw.Text

	AlignLeft   = draw.AlignLeft
	AlignCenter = draw.AlignCenter
	AlignRight  = draw.AlignRight

	LineHeight = draw.LineHeight
)

// The themes (see package draw).
var (
	Dark      = draw.Dark
	Light     = draw.Light
	Projector = draw.Projector
)

// Headline draws a strategy picture's headline (draw.Headline).
func Headline(l *List, th Theme, st Rect, sc float32, s string) { draw.Headline(l, th, st, sc, s) }

// HeadlineHeight is the height Headline takes (draw.HeadlineHeight).
func HeadlineHeight(st Rect, sc float32, s string) float32 { return draw.HeadlineHeight(st, sc, s) }
