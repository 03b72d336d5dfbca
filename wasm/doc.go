// Command wasm is gpuscope's entry point in the browser (GOOS=js,
// GOARCH=wasm). It binds the page's DOM controls (with
// honnef.co/go/js/dom/v2), keeps the URL fragment in step with the lesson,
// publishes window.gpuscope and the postMessage API, and starts Ebiten,
// which paints the display list package scene builds.
//
// Only code that must touch the browser lives here. The lesson's state —
// playhead, steps, knobs, commands, errors — is scenarios.Player; the
// picture of a moment is scene.Picture.Build; the side panel's changing
// parts are package page's element trees. All three are plain Go, tested
// natively.
//
// Threading: the Go runtime in the browser is single-threaded, but DOM
// callbacks and Ebiten's Update run as different goroutines, so every
// access to the player goes through app.mu.
package main
