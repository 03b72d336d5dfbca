//go:build js && wasm

package main

import (
	"log"

	"github.com/hajimehoshi/ebiten/v2"
)

func main() {
	useFetchedCatalogues()
	if err := loadScenarios(); err != nil {
		// The lessons that loaded still run; the tests fail on any error.
		log.Printf("gpuscope: the lessons: %v", err)
	}
	a, err := newApp()
	if err != nil {
		log.Printf("gpuscope: %v", err)
		return
	}
	ebiten.SetWindowTitle("gpuscope")
	ebiten.SetRunnableOnUnfocused(true)
	ebiten.SetScreenClearedEveryFrame(false)
	// Frames only when something changed (wake, in app.go). Ebiten v2.8
	// marks the setting deprecated in favour of the line above, which
	// keeps the screen between frames but still runs Update 60 times a
	// second and, after each change, copies the picture to the canvas on
	// three more frames (internal/ui/context.go, maxSkipCount): on a GPU
	// each copy is a pass over every pixel. It still implements it for
	// browsers (internal/ui/ui_js.go: needsUpdate).
	ebiten.SetFPSMode(ebiten.FPSModeVsyncOffMinimum) //nolint:staticcheck // see above
	// The page owns the keyboard: the canvas must not take focus on start
	// nor trap Tab (see releaseTab).
	if err := ebiten.RunGameWithOptions(a, &ebiten.RunGameOptions{InitUnfocused: true}); err != nil {
		log.Printf("gpuscope: %v", err)
	}
}
