// The second simulator in plain.html, driven by two buttons through
// embed.js (loaded first, with defer). No inline script: a page under a
// strict Content-Security-Policy can use this as it is.
(function () {
  "use strict";
  var sim = gpuscopeEmbed("#ring-sim");
  var status = document.getElementById("ring-status");

  // load() starts the simulation if the reader has not pressed its
  // "Load simulation" button yet; the commands wait until it is ready.
  document.getElementById("show-ring").addEventListener("click", function () {
    sim.load().pause().goto(2);
  });
  document.getElementById("play-ring").addEventListener("click", function () {
    sim.load().play().requestState();
  });

  function show(ev) {
    var s = ev.state;
    if (s) status.value = "Step " + s.step + " of " + s.steps + (s.playing ? ", playing" : "");
  }
  sim.on("ready", show);
  sim.on("step", show);
  sim.on("state", show);
  sim.on("finished", function () { status.value = "Finished"; });
})();
