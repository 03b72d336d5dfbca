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
	// The page owns the keyboard: the canvas must not take focus on start
	// nor trap Tab (see releaseTab).
	if err := ebiten.RunGameWithOptions(a, &ebiten.RunGameOptions{InitUnfocused: true}); err != nil {
		log.Printf("gpuscope: %v", err)
	}
}
