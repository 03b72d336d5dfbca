// Drives the sticky simulator of scrollytelling.html from the story: when a
// <section class="scene"> crosses the middle of the screen, the simulator
// gets its knobs (data-set, as in a URL: "gpus=16&nodes=4"), its step
// (data-step) and plays if the section has data-play, else pauses.
(function () {
  "use strict";
  var sim = gpuscopeEmbed("#story-sim");
  var scenes = Array.prototype.slice.call(document.querySelectorAll(".scene"));
  var sent = {}; // knob values already sent, to send only changes
  var active = null;

  function show(scene) {
    if (scene === active) return;
    if (active) active.classList.remove("active");
    active = scene;
    scene.classList.add("active");

    var knobs = {};
    var any = false;
    new URLSearchParams(scene.dataset.set || "").forEach(function (v, k) {
      if (sent[k] !== v) {
        knobs[k] = sent[k] = v;
        any = true;
      }
    });
    if (any) sim.set(knobs);
    if (scene.dataset.step) sim.goto(Number(scene.dataset.step));
    if ("play" in scene.dataset) sim.play(); else sim.pause();
  }

  // A thin band across the middle of the viewport: the scene that crosses
  // it is the one shown.
  var io = new IntersectionObserver(function (entries) {
    entries.forEach(function (e) {
      if (e.isIntersecting) show(e.target);
    });
  }, {rootMargin: "-45% 0px -50% 0px"});
  scenes.forEach(function (s) { io.observe(s); });
  if (scenes.length) show(scenes[0]);
})();
