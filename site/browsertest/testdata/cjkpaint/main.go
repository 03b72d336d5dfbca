//go:build js

// Command cjkpaint is TestCanvasCJKFallback's page: it paints a display
// list of labels that mix the canvas font with Chinese (which the browser
// draws, render/paint's fallback) on white, then sets window.cjkReady.
// The labels are cjkLabels in cjk_test.go; keep the two in step.
package main

import (
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/gpuscope/gpuscope/render"
	"github.com/gpuscope/gpuscope/render/paint"
)

type game struct{ frames int }

func (g *game) Update() error { return nil }

func (g *game) Draw(screen *ebiten.Image) {
	black := render.Color{A: 255}
	l := render.List{Width: 800, Height: 400, Background: render.Color{R: 255, G: 255, B: 255, A: 255}}
	l.Label(40, 40, 32, render.AlignLeft, black, "显存 80 GB")
	l.Label(40, 120, 32, render.AlignLeft, black, "a中b")
	l.Label(40, 200, 16, render.AlignLeft, black, "每个GPU，")
	paint.Draw(screen, l)
	// A few frames, so that the glyphs drawn into the atlas on the
	// first are surely on screen.
	if g.frames++; g.frames == 3 {
		js.Global().Set("cjkReady", true)
	}
}

func (g *game) Layout(w, h int) (int, int) { return w, h }

func main() {
	ebiten.SetScreenClearedEveryFrame(true)
	if err := ebiten.RunGame(&game{}); err != nil {
		js.Global().Get("console").Call("error", err.Error())
	}
}
