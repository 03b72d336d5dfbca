/* gpuscope course pages (written by `gpuscope site`, internal/course).
 *
 * On a lesson page this file is loaded (after embed.js) as soon as the
 * simulator's <iframe id="course-sim"> is in the document, and
 * gpuscopeEmbed adds the page's origin to the frame's URL:
 *   - window.courseSim is the embed controller (ready, state, goto, set…);
 *   - a <section data-step data-set> that crosses the middle of the
 *     viewport moves the simulator to its step and knobs;
 *   - a button.show-me does the same for its own data-step/data-set (and
 *     loads the simulator if it has not loaded yet);
 *   - button.print-handout prints the one-page handout (course.css).
 * On every course page the header's lesson menus close one another, on a
 * click elsewhere and on Escape.
 * And every course page registers the site's service worker (../../sw.js)
 * and asks it to keep this page and the course's files for offline reading;
 * <html data-offline="ready"> says it has.
 * No inline script anywhere: the pages run under script-src 'self'.
 */
(function () {
  "use strict";

  var frame = document.getElementById("course-sim");
  if (frame && window.gpuscopeEmbed) {
    var src = frame.getAttribute("src");
    var sim = window.courseSim = window.gpuscopeEmbed(frame);
    if (frame.getAttribute("src") !== src) {
      // embed.js put this page's origin into the frame's URL. A load of
      // the old URL already under way would win (a new fragment alone does
      // not reload a frame) and leave the frame deaf to this page: put the
      // frame back into the page, which loads the new URL afresh.
      var parent = frame.parentNode, next = frame.nextSibling;
      parent.removeChild(frame);
      parent.insertBefore(frame, next);
    }
    var sent = {};        // knob values sent so far
    var shown = null;     // the step last asked for
    var quietUntil = 0;   // ignore scrolling until then (after a button)

    var move = function (step, set) {
      var knobs = {};
      var any = false;
      new URLSearchParams(set || "").forEach(function (v, k) {
        if (sent[k] !== v) {
          knobs[k] = sent[k] = v;
          any = true;
        }
      });
      if (any) sim.set(knobs);
      if (step && (step !== shown || any)) {
        shown = step;
        sim.goto(step);
      }
    };

    var sections = Array.prototype.slice.call(document.querySelectorAll("section[data-step]"));
    var active = null;
    var activate = function (section) {
      if (section === active) return;
      if (active) active.classList.remove("active");
      active = section;
      section.classList.add("active");
      move(Number(section.dataset.step), section.dataset.set);
    };
    if ("IntersectionObserver" in window) {
      // A thin band across the middle of the viewport: the section that
      // crosses it is the one the simulator shows.
      var io = new IntersectionObserver(function (entries) {
        if (Date.now() < quietUntil) return;
        entries.forEach(function (e) {
          if (e.isIntersecting) activate(e.target);
        });
      }, {rootMargin: "-45% 0px -50% 0px"});
      sections.forEach(function (s) { io.observe(s); });
    }

    Array.prototype.forEach.call(document.querySelectorAll("button.show-me"), function (b) {
      b.addEventListener("click", function () {
        sim.load();
        shown = null; // the reader may have moved it: go there again
        move(Number(b.dataset.step), b.dataset.set);
        var r = frame.getBoundingClientRect();
        if (r.bottom < 0 || r.top > window.innerHeight) {
          // On a phone the simulator is above the text: bring it back.
          quietUntil = Date.now() + 800;
          frame.scrollIntoView({block: "start"});
        }
      });
    });
  }

  // The header's lesson menus: one open at a time, closed by a click
  // elsewhere or Escape.
  var menus = Array.prototype.slice.call(document.querySelectorAll("details.menu"));
  menus.forEach(function (m) {
    m.addEventListener("toggle", function () {
      if (m.open) menus.forEach(function (o) { if (o !== m) o.open = false; });
    });
  });
  document.addEventListener("click", function (e) {
    menus.forEach(function (m) { if (m.open && !m.contains(e.target)) m.open = false; });
  });
  document.addEventListener("keydown", function (e) {
    if (e.key !== "Escape") return;
    menus.forEach(function (m) {
      if (m.open) {
        m.open = false;
        m.querySelector("summary").focus();
      }
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll("button.print-handout"), function (b) {
    b.addEventListener("click", function () { window.print(); });
  });
  var url = document.querySelector(".handout-url");
  if (url) url.textContent = location.href.split("#")[0];

  // Offline reading: the service worker at the site's root. Once it is
  // active, it is asked to keep what this page (and the simulator's frame,
  // same origin) fetched, and the language's other course pages; it
  // fetches only what it has not kept yet.
  if ("serviceWorker" in navigator && location.protocol !== "file:") {
    var fetched = function (win) {
      try {
        return win.performance.getEntriesByType("resource").map(function (e) { return e.name; });
      } catch (e) {
        return [];
      }
    };
    var precache = function (reg) {
      var urls = [location.href, "index.html", "glossary.html", "search.html", "search.json", "../search.js"];
      Array.prototype.forEach.call(document.querySelectorAll("link[href], script[src], img[src], iframe[src]"), function (el) {
        urls.push(el.getAttribute("href") || el.getAttribute("src"));
      });
      urls = urls.concat(fetched(window));
      if (frame && frame.contentWindow) urls = urls.concat(fetched(frame.contentWindow));
      var abs = urls.map(function (u) { return new URL(u, location.href).href.split("#")[0]; })
        .filter(function (u, i, all) { return all.indexOf(u) === i; });
      var ch = new MessageChannel();
      ch.port1.onmessage = function () { document.documentElement.dataset.offline = "ready"; };
      reg.active.postMessage({type: "precache", urls: abs}, [ch.port2]);
    };
    navigator.serviceWorker.register("../../sw.js").then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      precache(reg);
      // Once the simulator has loaded, keep its files too.
      if (window.courseSim) window.courseSim.on("ready", function () { precache(reg); });
    }).catch(function (e) {
      console.warn("gpuscope course: offline reading is unavailable:", e);
    });
  }
})();
