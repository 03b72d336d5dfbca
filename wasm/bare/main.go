//go:build js

// Command bare is the smallest Ebiten program: it fills the screen with one
// colour and sets window.bareReady = true after its first frame. make bench
// builds it as bare.wasm and compares its gzip size and its
// navigation-to-first-frame time with main.wasm's in the same headless run.
package main

import (
	"image/color"
	"syscall/js"

	"github.com/hajimehoshi/ebiten/v2"
)

type game struct{ ready bool }

func (g *game) Update() error { return nil }

// Draw fills the screen and, the first time, tells the page.
func (g *game) Draw(screen *ebiten.Image) {
	screen.Fill(color.NRGBA{0x1e, 0x29, 0x3b, 0xff})
	if !g.ready {
		js.Global().Set("bareReady", true)
		g.ready = true
	}
}

func (g *game) Layout(w, h int) (int, int) { return w, h }

func main() {
	if err := ebiten.RunGame(&game{}); err != nil {
		js.Global().Get("console").Call("error", err.Error())
	}
}
