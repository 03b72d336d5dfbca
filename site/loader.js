// gpuscope loader: fetches main.wasm with a progress bar, then starts it.
//
// Needs wasm_exec.js (the Go runtime glue) loaded before it; no other
// dependencies and no inline script, so a strict CSP
// (script-src 'self' 'wasm-unsafe-eval') is enough.
//
// Progress: #loader-bar is a <progress>; without a value it is indeterminate.
// The text counts the bytes that travel. Sent as they are, main.wasm's
// Content-Length is its size: "Loading gpuscope… 3.1 of 14.3 MB". The
// server may send a compressed copy instead (Content-Encoding: gzip, as
// gpuscope serve does): then the stream yields decompressed bytes while the
// Content-Length counts compressed ones, so the text gives the share of the
// decompressed size arrived, of the compressed size that travels —
// "Loading gpuscope… 42% of 3.5 MB" — when the server also sends the
// decompressed size (X-Uncompressed-Length; gpuscope serve does). Without
// it the bar stays indeterminate and the text says only the compressed size;
// without either, nothing: a count of decompressed bytes would overstate
// the transfer about fourfold.
//
// The wasm hides #loader (class "hidden") once it has drawn its first frame.
// window.gpuscopeLoader reports {phase, loaded, total, transfer, encoding,
// error} for tests: loaded and total count decompressed bytes (total 0 when
// unknown), transfer the bytes on the wire (0 when unknown), encoding the
// Content-Encoding ("identity" when none); phase is "poster", "loading",
// "starting", "running", "exited" or "failed".
//
// Embeds (body.page-embed) load lazily, as the fragment's load= key says:
// "click" (the default) shows the lesson's poster (posters/ID-THEME.png,
// ID-THEME-zh.png with lang=zh; rendered by make posters) and a "Load
// simulation" button, and fetches nothing more until the reader presses
// it; "visible" loads when the frame scrolls into view; "auto" loads at
// once. A parent page on the fragment's
// origins= allow-list may also post {version: 1, type: "load"}. The
// fragment is read here only for these few keys; the wasm parses it in
// full (and reports any error in it) once it runs.
//
// Catalogues: main.wasm embeds none (scenarios/i18n, built with -tags
// i18nfetch). The loader fetches English, the fallback, and the
// fragment's lang= catalogue, i18n/LANG.txt, alongside main.wasm and
// leaves them in window.gpuscopeI18n.texts before the wasm starts; the
// others once the reader reaches for the language picker. A catalogue
// asked for before it arrives the wasm fetches itself (wasm/catalogue.go).
// The lessons' files come the same way: scenarios.txt, one bundle, into
// window.gpuscopeScenarios (wasm/bundle.go).
(function () {
  "use strict";

  var WASM_URL = "main.wasm";
  var status = { phase: "loading", loaded: 0, total: 0, transfer: 0, encoding: "identity", error: null };
  window.gpuscopeLoader = status;

  // The languages main.wasm does not embed: all of i18n.Langs().
  var FETCHED_LANGS = ["en", "zh"];
  var catalogues = { base: "i18n/", texts: {} };
  window.gpuscopeI18n = catalogues;
  var pending = {};

  // fetchCatalogue fetches lang's catalogue once into catalogues.texts;
  // the promise never rejects (the wasm retries, and explains, itself).
  function fetchCatalogue(lang) {
    if (FETCHED_LANGS.indexOf(lang) < 0) return Promise.resolve();
    if (!pending[lang]) {
      pending[lang] = fetch(catalogues.base + lang + ".txt").then(function (resp) {
        return resp.ok ? resp.text() : null;
      }).then(function (text) {
        if (typeof text === "string") catalogues.texts[lang] = text;
      }).catch(function () {});
    }
    return pending[lang];
  }

  // fetchScenarios fetches the lessons' files (main.wasm embeds none)
  // into window.gpuscopeScenarios; it never rejects (the wasm fetches
  // them itself if they are not there).
  function fetchScenarios() {
    return fetch("scenarios.txt").then(function (resp) {
      return resp.ok ? resp.text() : null;
    }).then(function (text) {
      if (typeof text === "string") window.gpuscopeScenarios = text;
    }).catch(function () {});
  }

  // prefetchOnIntent fetches every catalogue when the reader reaches for
  // the language picker, so that picking one finds it there.
  function prefetchOnIntent() {
    var all = function () { FETCHED_LANGS.forEach(fetchCatalogue); };
    ["pointerdown", "focusin", "keydown"].forEach(function (type) {
      document.addEventListener(type, function (ev) {
        if (ev.target && ev.target.id === "lang") all();
      }, true);
    });
  }

  function $(id) { return document.getElementById(id); }

  function mb(n) { return (n / 1e6).toFixed(1); }

  // progressText is the loader's line for loaded of total decompressed
  // bytes (total 0: unknown), transfer bytes on the wire (0: unknown) and
  // the response's encoding.
  function progressText(loaded, total, transfer, encoding) {
    var head = "Loading gpuscope… ";
    if (encoding === "identity") {
      return total > 0 ? head + mb(loaded) + " of " + mb(total) + " MB" : head + mb(loaded) + " MB";
    }
    var pct = total > 0 ? Math.min(100, Math.floor(100 * loaded / total)) + "%" : "";
    if (transfer > 0) {
      return pct ? head + pct + " of " + mb(transfer) + " MB" : head + "(" + mb(transfer) + " MB compressed)";
    }
    return pct ? head + pct : "Loading gpuscope…";
  }

  function showProgress(loaded, total) {
    var bar = $("loader-bar");
    var text = $("loader-text");
    if (bar) {
      if (total > 0) {
        bar.max = total;
        bar.value = Math.min(loaded, total);
      } else {
        bar.removeAttribute("value"); // indeterminate
      }
    }
    if (text) {
      // The numbers are not in the catalogue: stop the wasm from
      // overwriting them with the bare "Loading" label.
      text.removeAttribute("data-i18n");
      text.textContent = progressText(loaded, total, status.transfer, status.encoding);
    }
  }

  function fail(message) {
    status.phase = "failed";
    status.error = message;
    var loader = $("loader");
    var text = $("loader-text");
    if (loader) {
      loader.classList.remove("hidden");
      loader.classList.add("failed");
      loader.setAttribute("role", "alert");
    }
    if (text) {
      text.setAttribute("data-i18n", "ui.loading_failed");
      text.textContent = "gpuscope could not start: " + message;
    }
    console.error("gpuscope: " + message);
  }

  // Ebiten asks for the canvas's WebGL 2 context without saying whether
  // to antialias, and WebGL's default is yes: a drawing buffer of 4
  // samples a pixel, resolved every frame. Ebiten draws the picture in an
  // offscreen image (the painter anti-aliases its own edges) and only
  // copies it to the canvas pixel for pixel, so multisampling that copy
  // changes no pixel; it cost a fifth to a quarter of each frame's GPU
  // time under SwiftShader (issue 38: 147 → 106 ms a frame, stepping
  // through ring-allreduce), and a phone's GPU pays it too (issue 43). A
  // page's own canvases that ask for antialias keep it.
  (function noMultisampling() {
    var proto = window.HTMLCanvasElement && HTMLCanvasElement.prototype;
    if (!proto || proto.getContext.gpuscopeWrapped) return;
    var getContext = proto.getContext;
    var wrapped = function (type, attrs) {
      if (type === "webgl2" && attrs && typeof attrs === "object" && !("antialias" in attrs)) {
        attrs.antialias = false;
      }
      return getContext.apply(this, arguments);
    };
    wrapped.gpuscopeWrapped = true;
    proto.getContext = wrapped;
  })();

  function hasWebGL2() {
    try {
      var c = document.createElement("canvas");
      var gl = c.getContext("webgl2");
      if (!gl) return false;
      var lose = gl.getExtension("WEBGL_lose_context");
      if (lose) lose.loseContext();
      return true;
    } catch (e) {
      return false;
    }
  }

  // noWebGL reports a missing WebGL 2 as the reason for a failure.
  function noWebGL() {
    if (hasWebGL2()) return false;
    fail("this browser has WebGL 2 turned off or unavailable; gpuscope needs it to draw.");
    return true;
  }

  function headerInt(resp, name) {
    var v = resp.headers.get(name);
    if (v === null || !/^\d+$/.test(v.trim())) return 0;
    return parseInt(v, 10);
  }

  // encodingOf is resp's Content-Encoding, "identity" when none.
  function encodingOf(resp) {
    return (resp.headers.get("Content-Encoding") || "identity").trim().toLowerCase() || "identity";
  }

  // expectedSize returns the decoded size of the body, or 0 when unknown.
  function expectedSize(resp) {
    if (encodingOf(resp) !== "identity") {
      return headerInt(resp, "X-Uncompressed-Length"); // Content-Length counts encoded bytes
    }
    return headerInt(resp, "Content-Length");
  }

  // counter tracks the bytes of resp's body as they arrive and shows them,
  // at most once per frame.
  function counter(resp) {
    status.encoding = encodingOf(resp);
    status.transfer = headerInt(resp, "Content-Length");
    status.total = expectedSize(resp);
    status.loaded = 0;
    showProgress(0, status.total);
    var pending = false;
    return {
      add: function (n) {
        status.loaded += n;
        if (status.total > 0 && status.loaded > status.total) {
          status.total = 0; // the advertised size was wrong: go indeterminate
        }
        if (!pending) {
          pending = true;
          requestAnimationFrame(function () {
            pending = false;
            if (status.phase === "loading") showProgress(status.loaded, status.total);
          });
        }
      },
      done: function () { showProgress(status.loaded, status.total); }
    };
  }

  async function readAll(resp) {
    var count = counter(resp);
    if (!resp.body || !resp.body.getReader) {
      var whole = new Uint8Array(await resp.arrayBuffer());
      count.add(whole.length);
      count.done();
      return whole;
    }
    var reader = resp.body.getReader();
    var chunks = [];
    var loaded = 0;
    for (;;) {
      var r = await reader.read();
      if (r.done) break;
      chunks.push(r.value);
      loaded += r.value.length;
      count.add(r.value.length);
    }
    count.done();
    var bytes = new Uint8Array(loaded);
    var off = 0;
    for (var i = 0; i < chunks.length; i++) {
      bytes.set(chunks[i], off);
      off += chunks[i].length;
    }
    return bytes;
  }

  function starting() {
    status.phase = "starting";
    var text = $("loader-text");
    if (text) text.textContent = "Starting gpuscope…";
  }

  // instantiate compiles main.wasm while it downloads (as a bare
  // instantiateStreaming would), counting the bytes for the progress bar
  // on the way; browsers without streams read it whole first.
  async function instantiate(resp, imports) {
    var streaming = typeof WebAssembly.instantiateStreaming === "function" &&
      typeof TransformStream === "function" && resp.body && typeof resp.body.pipeThrough === "function";
    if (!streaming) {
      var bytes;
      try {
        bytes = await readAll(resp);
      } catch (e) {
        e.download = true;
        throw e;
      }
      starting();
      return WebAssembly.instantiate(bytes, imports);
    }
    var count = counter(resp);
    var counted = resp.body.pipeThrough(new TransformStream({
      transform: function (chunk, ctl) {
        count.add(chunk.length);
        ctl.enqueue(chunk);
      },
      flush: function () {
        count.done();
        starting();
      }
    }));
    return WebAssembly.instantiateStreaming(
      new Response(counted, { headers: { "Content-Type": "application/wasm" } }), imports);
  }

  async function start() {
    if (typeof WebAssembly !== "object") {
      fail("this browser does not support WebAssembly.");
      return;
    }
    if (typeof Go !== "function") {
      fail("wasm_exec.js did not load.");
      return;
    }
    // WebGL is not probed up front (a probe context costs a noticeable
    // part of start-up): when the program fails, noWebGL() explains why.
    var catalogue = Promise.all([fetchCatalogue("en"), fetchCatalogue(fragmentValue("lang").toLowerCase()), fetchScenarios()]);
    var resp;
    try {
      resp = await fetch(WASM_URL);
    } catch (e) {
      fail("could not fetch " + WASM_URL + " (" + e.message + ").");
      return;
    }
    if (!resp.ok) {
      fail("fetching " + WASM_URL + " returned HTTP " + resp.status + ".");
      return;
    }
    var go = new Go();
    var goExit = go.exit;
    go.exit = function (code) {
      if (goExit) goExit.call(go, code);
      if (code === 0) {
        status.phase = "exited";
        return;
      }
      var loader = $("loader");
      if (loader && !loader.classList.contains("hidden")) {
        if (noWebGL()) return;
        fail("the program stopped with exit code " + code + " (see the browser console).");
        return;
      }
      status.phase = "failed";
      status.error = "exit code " + code;
      var box = $("error");
      if (box) {
        box.setAttribute("data-i18n", "ui.crashed");
        box.textContent = "gpuscope stopped unexpectedly (exit code " + code +
          "). Reload the page to start again.";
      }
      console.error("gpuscope: the program stopped with exit code " + code);
    };

    var result;
    try {
      result = await instantiate(resp, go.importObject);
    } catch (e) {
      if (e && e.download) {
        fail("download of " + WASM_URL + " was interrupted (" + e.message + ").");
      } else {
        fail("main.wasm is not a valid WebAssembly module (" + (e && e.message || e) + ").");
      }
      return;
    }
    await catalogue;
    status.phase = "running";
    go.run(result.instance).catch(function (e) {
      if (noWebGL()) return;
      fail("the program crashed (" + e.message + ").");
    });
  }

  var started = false;
  function boot() {
    if (started) return;
    started = true;
    var poster = $("poster");
    if (poster) poster.hidden = true;
    document.documentElement.classList.remove("poster");
    status.phase = "loading";
    withRuntime(function () {
      start().catch(function (e) { fail(String(e && e.message || e)); });
    });
  }

  // withRuntime runs f once wasm_exec.js (the Go runtime glue) is loaded;
  // embeds load it only when they load the simulation.
  function withRuntime(f) {
    if (typeof Go === "function" || document.querySelector("script[src$='wasm_exec.js']")) {
      f();
      return;
    }
    var s = document.createElement("script");
    s.src = "wasm_exec.js";
    s.onload = f;
    s.onerror = function () { fail("wasm_exec.js did not load."); };
    document.head.appendChild(s);
  }

  // fragmentValue is key's value in the URL fragment ("" when absent; the
  // last one wins, as in the wasm's parser).
  function fragmentValue(key) {
    var out = "";
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      var k = kv[0], v = kv.slice(1).join("=");
      try {
        k = decodeURIComponent(k.replace(/\+/g, " "));
        v = decodeURIComponent(v.replace(/\+/g, " "));
      } catch (e) {
        return;
      }
      if (k === key) out = v.trim();
    });
    return out;
  }

  // showPoster shows the lesson's poster and the load button and waits for
  // a reason to load.
  function showPoster() {
    var poster = $("poster");
    if (!poster) {
      boot();
      return;
    }
    status.phase = "poster";
    document.documentElement.classList.add("poster");
    var zh = fragmentValue("lang").toLowerCase() === "zh";
    var theme = fragmentValue("theme").toLowerCase();
    if (theme !== "light" && theme !== "dark") {
      theme = window.matchMedia && matchMedia("(prefers-color-scheme: light)").matches ? "light" : "dark";
    }
    document.documentElement.setAttribute("data-theme", theme);
    var id = fragmentValue("scenario");
    var img = $("poster-img");
    if (img && /^[a-z0-9-]{1,64}$/.test(id)) {
      img.onerror = function () { img.hidden = true; };
      // The picture's labels are in the page's language: a Chinese
      // embed shows the Chinese poster (cmd/posters: ID-THEME-zh.png).
      img.src = "posters/" + id + "-" + theme + (zh ? "-zh" : "") + ".png";
      img.hidden = false;
    }
    var btn = $("load-btn");
    if (btn) {
      if (zh) {
        document.documentElement.lang = "zh-Hans";
        btn.textContent = "\u25B6 \u52A0\u8F7D\u6A21\u62DF"; // ▶ 加载模拟
      }
      btn.addEventListener("click", boot);
    }
    poster.hidden = false;
    if (fragmentValue("load").toLowerCase() === "visible" && "IntersectionObserver" in window) {
      var io = new IntersectionObserver(function (entries) {
        if (entries.some(function (e) { return e.isIntersecting; })) {
          io.disconnect();
          boot();
        }
      });
      io.observe(poster);
    }
    // The parent page may ask, if it is on the allow-list.
    var allowed = fragmentValue("origins").toLowerCase().split(",").map(function (o) {
      return o.trim().replace(/\/$/, "").replace(/^(http:\/\/[^\/]+):80$/, "$1").replace(/^(https:\/\/[^\/]+):443$/, "$1");
    });
    window.addEventListener("message", function onMessage(ev) {
      var d = ev.data;
      if (started || !d || typeof d !== "object" || d.type !== "load") return;
      if (allowed.indexOf(ev.origin) < 0) {
        console.warn("gpuscope: ignored a load message from " + ev.origin + ": not in origins");
        return;
      }
      if (d.version !== 1) {
        console.warn("gpuscope: ignored a load message: version " + d.version + "; this frame speaks version 1");
        return;
      }
      window.removeEventListener("message", onMessage);
      boot();
    });
  }

  function init() {
    prefetchOnIntent();
    var embed = document.body && document.body.classList.contains("page-embed");
    var mode = fragmentValue("load").toLowerCase();
    if (embed && mode !== "auto") {
      showPoster();
    } else {
      boot();
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
