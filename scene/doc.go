// Package scene is the picture step: it turns a lesson's moment — the
// prepared lesson, the step, the playhead, whether the step's question is
// still waiting for the reader — and a frame (the canvas, the stage
// rectangle, the scale, the theme and the reader's language) into a
// render.List. It is plain Go: the page (package wasm) calls it every time
// the picture can have changed and paints the list; the native tests call
// it for every lesson's every step.
//
// One picture builder a lesson kind, registered in builders (scene.go)
// under the kind's name from scenarios' registry; a test fails if a
// registered kind has none, or if a view its show: lines may name does
// not change the picture.
//
// Units: the frame is in device pixels, as render's are; the playhead is
// simulated time on the step's run (scenarios.StepRun.From … To).
//
// What a picture computes from its run alone (a schedule's blocks, a
// fault trace's points) is kept in the Picture between frames, so that a
// playing lesson rebuilds only what moves.
package scene
