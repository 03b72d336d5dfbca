// Command wasm is gpuscope's entry point in the browser (GOOS=js,
// GOARCH=wasm). It binds the page's DOM controls (with
// honnef.co/go/js/dom/v2), keeps the URL fragment in step with the lesson,
// publishes window.gpuscope, and starts Ebiten, which paints what
// package render builds.
//
// Only code that must touch the browser lives here. The lesson's state —
// playhead, steps, knobs, commands, errors — is scenarios.Player, plain Go
// tested natively; the picture is render.Collective, golden-tested as text.
//
// Threading: the Go runtime in the browser is single-threaded, but DOM
// callbacks and Ebiten's Update run as different goroutines, so every
// access to the player goes through app.mu.
package main
