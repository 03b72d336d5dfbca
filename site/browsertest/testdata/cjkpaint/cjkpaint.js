"use strict";
(async () => {
  const go = new Go();
  const { instance } = await WebAssembly.instantiateStreaming(fetch("cjkpaint.wasm"), go.importObject);
  go.run(instance);
})().catch((err) => console.error("cjkpaint:", err));
