/* gpuscope embed.js: drive gpuscope simulators embedded in your page.
 * No dependencies, no build step, no inline script needed.
 *
 *   <iframe id="sim" src="https://gpuscope.example/embed.html#scenario=ring-allreduce"
 *     title="gpuscope: Ring all-reduce" loading="lazy" allow="fullscreen"
 *     style="width:100%; aspect-ratio:16/10; border:0"></iframe>
 *   <script src="https://gpuscope.example/embed.js" defer></script>
 *   <script src="post.js" defer></script>
 *
 *   // post.js
 *   var sim = gpuscopeEmbed("#sim");
 *   sim.on("step", function (ev) { console.log("step", ev.step); });
 *   button.addEventListener("click", function () { sim.load().goto(2); });
 *
 * gpuscopeEmbed(target, options) -> controller
 *   target   an <iframe> or a CSS selector for one
 *   options  autoHeight: true  size the iframe's height to the frame's
 *                              "resize" events (drops an inline aspect-ratio)
 *            addOrigin: false  leave iframe.src alone (see below)
 *
 * The frame obeys only the origins listed in its fragment ("origins=").
 * gpuscopeEmbed adds this page's origin to that list, rewriting iframe.src
 * (and reloading the frame if it had loaded), so a pasted snippet just works.
 *
 * Controller; commands return it, for chaining:
 *   play(), pause()
 *   step(delta)         delta steps on (default 1; negative goes back)
 *   goto(n)             step n, from 1
 *   gotoTime(seconds)   seek within the current step's run
 *   set(key, value), set({key: value, ...})   change knobs: set("gpus", 16)
 *   zoom(level, gpu)    zoom into the "node", "gpu" or "sm" (back: "cluster"),
 *                       on GPU gpu if given; zoom(+1) or zoom(-1) a level in or out
 *   requestState()      ask for a "state" event
 *   load()              start a load=click|visible frame's simulation now
 *   on(type, fn), off(type, fn)   fn(event); type "*" gets every event
 *   destroy()           stop listening
 *   ready               true once the simulation has loaded and drawn
 *   state               the last state the frame sent, or null
 * Commands given before ready wait in a queue and go, in order, on ready
 * (load() goes at once).
 *
 * Events: {source: "gpuscope", version: 1, type, ...}: ready {state},
 * step {step, state}, finished, resize {height}, state {state}, error
 * {error}, and answer {lesson, step, step_id, question, choice, correct,
 * time} when the reader answers a step's prediction question (question:
 * the question's id, one per lesson; choice: 0-based; time: milliseconds
 * since the Unix epoch, as Date.now()):
 *
 *   sim.on("answer", function (a) { tally(a.lesson, a.question, a.correct); });
 *
 * A frame with "steps=2-4" (or "steps=3") in its fragment shows only those
 * steps: its buttons, keys, step(), goto() and set() stay inside them.
 *
 * A state is window.gpuscope.state() inside the frame: scenario, step,
 * steps, step_id, playing, time_s, from_s, to_s, end_s, speed, lang,
 * config (by the fragment's keys: int and float knobs as numbers, enums
 * and byte sizes as strings), metrics, error, errors, fragment, question.
 */
(function () {
  "use strict";

  var VERSION = 1;

  function frameOf(target) {
    var el = typeof target === "string" ? document.querySelector(target) : target;
    if (!el || el.tagName !== "IFRAME") {
      throw new TypeError("gpuscopeEmbed: " + target + " is not an <iframe>");
    }
    return el;
  }

  function originOf(s) {
    try {
      var o = new URL(s).origin;
      return o === "null" ? "" : o;
    } catch (e) {
      return "";
    }
  }

  function decode(s) {
    try {
      return decodeURIComponent(s.replace(/\+/g, " "));
    } catch (e) {
      return s;
    }
  }

  // withOrigin returns url (a URL object) with origin on the allow-list
  // of its fragment, or null when it is there already.
  function withOrigin(url, origin) {
    var parts = url.hash.replace(/^#/, "").split("&").filter(Boolean);
    var list = [];
    var at = -1;
    for (var i = 0; i < parts.length; i++) {
      if (decode(parts[i].split("=")[0]) === "origins") {
        at = i; // the last one counts, as in the frame
        list = decode(parts[i].slice(parts[i].indexOf("=") + 1)).split(",");
      }
    }
    list = list.map(function (o) { return o.trim(); }).filter(Boolean);
    if (list.some(function (o) { return originOf(o) === origin; })) return null;
    list.push(origin);
    var entry = "origins=" + encodeURIComponent(list.join(","));
    if (at >= 0) parts[at] = entry; else parts.push(entry);
    var out = new URL(url.href);
    out.hash = parts.join("&");
    return out;
  }

  // loaded: the frame shows more than its initial about:blank (a document
  // of another origin cannot be read at all).
  function loaded(iframe) {
    try {
      var href = iframe.contentWindow.location.href;
      return !!href && href !== "about:blank";
    } catch (e) {
      return true;
    }
  }

  window.gpuscopeEmbed = function (target, options) {
    options = options || {};
    var iframe = frameOf(target);
    var src = new URL(iframe.getAttribute("src") || "", document.baseURI);
    var frameOrigin = originOf(src.href);
    if (!frameOrigin) throw new TypeError("gpuscopeEmbed: the iframe has no http(s) src");

    var handlers = {};
    var queue = [];
    var docLoaded = loaded(iframe);
    var loadPending = false;
    var live = true;
    var ctl;

    var mine = originOf(location.href);
    var fixed = mine && options.addOrigin !== false ? withOrigin(src, mine) : null;
    if (fixed) {
      // Take the frame out of the page, change its src and put it back: a
      // frame that read its fragment already would not reload for a
      // fragment-only change, and one still loading (or waiting, with
      // loading="lazy", to come near the viewport) could finish the
      // navigation it started with the old src. A frame put back in the
      // page starts afresh from the new one.
      var parent = iframe.parentNode, next = iframe.nextSibling;
      if (parent) parent.removeChild(iframe);
      iframe.src = fixed.href;
      if (parent) parent.insertBefore(iframe, next);
      docLoaded = false;
    }

    function post(msg) {
      var w = iframe.contentWindow;
      if (w) w.postMessage(msg, frameOrigin);
    }

    function emit(data) {
      [data.type, "*"].forEach(function (t) {
        (handlers[t] || []).slice().forEach(function (fn) {
          try {
            fn.call(ctl, data);
          } catch (e) {
            setTimeout(function () { throw e; });
          }
        });
      });
    }

    function becomeReady() {
      ctl.ready = true;
      var q = queue;
      queue = [];
      q.forEach(post);
    }

    function send(type, fields) {
      var msg = Object.assign({}, fields || {}, {version: VERSION, type: type});
      if (live) {
        if (ctl.ready) post(msg); else queue.push(msg);
      }
      return ctl;
    }

    function onMessage(ev) {
      var data = ev.data;
      if (ev.source !== iframe.contentWindow || ev.origin !== frameOrigin ||
          !data || data.source !== "gpuscope" || data.version !== VERSION || typeof data.type !== "string") {
        return;
      }
      if (data.state) ctl.state = data.state;
      if (data.type === "resize" && options.autoHeight && data.height > 0) {
        iframe.style.removeProperty("aspect-ratio");
        iframe.style.height = Math.ceil(data.height) + "px";
      }
      var first = !ctl.ready && (data.type === "ready" || data.state);
      if (first) becomeReady();
      // A frame that was ready before we listened shows itself through a
      // state event: report it as ready all the same.
      if (first && data.type !== "ready") {
        emit({source: "gpuscope", version: VERSION, type: "ready", state: data.state});
      }
      emit(data);
    }

    function onFrameLoad() {
      docLoaded = loaded(iframe);
      if (docLoaded && loadPending) {
        loadPending = false;
        post({version: VERSION, type: "load"});
      }
    }

    window.addEventListener("message", onMessage);
    iframe.addEventListener("load", onFrameLoad);

    ctl = {
      ready: false,
      state: null,
      frameOrigin: frameOrigin,
      iframe: iframe,
      play: function () { return send("play"); },
      pause: function () { return send("pause"); },
      step: function (delta) { return send("step", {delta: delta == null ? 1 : delta}); },
      goto: function (n) { return send("goto", {step: n}); },
      gotoTime: function (seconds) { return send("goto", {time_s: seconds}); },
      set: function (key, value) {
        return send("set", key && typeof key === "object" ? key : {key: String(key), value: value});
      },
      zoom: function (level, gpu) {
        var m = typeof level === "number" ? {delta: level} : {level: String(level)};
        if (gpu != null) m.gpu = gpu;
        return send("zoom", m);
      },
      requestState: function () { return send("state"); },
      load: function () {
        if (!live || ctl.ready) return ctl;
        if (docLoaded) post({version: VERSION, type: "load"}); else loadPending = true;
        return ctl;
      },
      on: function (type, fn) {
        (handlers[type] = handlers[type] || []).push(fn);
        return ctl;
      },
      off: function (type, fn) {
        handlers[type] = (handlers[type] || []).filter(function (f) { return f !== fn; });
        return ctl;
      },
      destroy: function () {
        live = false;
        window.removeEventListener("message", onMessage);
        iframe.removeEventListener("load", onFrameLoad);
        handlers = {};
        queue = [];
      }
    };
    // A frame that loaded before this call may be ready already: ask.
    if (docLoaded) post({version: VERSION, type: "state"});
    return ctl;
  };
})();
