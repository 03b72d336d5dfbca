// Loads bare.wasm (a bare Ebiten program, the yardstick for main.wasm's size
// and time to first frame). The wasm sets window.bareReady after its first
// frame.
"use strict";
(async () => {
  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch("bare.wasm"), go.importObject);
  go.run(instance);
})().catch((err) => console.error("bare:", err));
