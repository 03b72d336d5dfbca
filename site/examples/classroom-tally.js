// classroom-tally.html: tally the answers given in several gpuscope
// frames (issue 41's answer events), through embed.js (loaded first, with
// defer). No inline script: works under a strict Content-Security-Policy.
(function () {
  "use strict";

  // An address of yours that takes a POST of each answer as JSON, to
  // collect a whole class; "" keeps the answers on this page.
  var REPORT_URL = "";

  var body = document.querySelector("#tally tbody");
  var status = document.getElementById("tally-status");
  var log = document.getElementById("answer-log");

  // latest[frame id + " " + lesson + " " + question] is that frame's
  // latest answer to that question: a student who changes their mind
  // counts once. rows keeps the questions in the order first answered.
  var latest = {};
  var rows = [];

  function keyOf(frameId, a) { return frameId + " " + a.lesson + " " + a.question; }

  function render() {
    var byQuestion = {};
    Object.keys(latest).forEach(function (k) {
      var a = latest[k];
      var q = a.lesson + " / " + a.question;
      var t = byQuestion[q] = byQuestion[q] || {answers: 0, right: 0, choices: []};
      t.answers++;
      if (a.correct) t.right++;
      t.choices[a.choice] = (t.choices[a.choice] || 0) + 1;
    });
    body.textContent = "";
    rows.forEach(function (q) {
      var t = byQuestion[q];
      var tr = document.createElement("tr");
      tr.dataset.question = q;
      var choices = [];
      for (var i = 0; i < t.choices.length; i++) {
        choices.push(String.fromCharCode(65 + i) + ": " + (t.choices[i] || 0));
      }
      [q, t.answers, t.right + " (" + Math.round(100 * t.right / t.answers) + "%)", choices.join(", ")].forEach(function (text, i) {
        var cell = document.createElement(i === 0 ? "th" : "td");
        if (i === 0) cell.scope = "row";
        cell.textContent = String(text);
        tr.appendChild(cell);
      });
      body.appendChild(tr);
    });
    var n = Object.keys(latest).length;
    status.value = n === 0 ? "No answers yet." : n + (n === 1 ? " answer" : " answers") + " counted.";
  }

  function onAnswer(frameId) {
    return function (a) {
      var q = a.lesson + " / " + a.question;
      if (rows.indexOf(q) < 0) rows.push(q);
      latest[keyOf(frameId, a)] = a;
      var li = document.createElement("li");
      li.textContent = new Date(a.time).toLocaleTimeString() + ": " + q + " (step " + a.step + "), choice " +
        String.fromCharCode(65 + a.choice) + (a.correct ? ", right" : ", not right");
      log.appendChild(li);
      render();
      if (REPORT_URL) {
        fetch(REPORT_URL, {
          method: "POST",
          headers: {"Content-Type": "application/json"},
          body: JSON.stringify(Object.assign({frame: frameId, page: location.pathname}, a)),
          keepalive: true
        }).catch(function () { /* the tally on this page still counts it */ });
      }
    };
  }

  // One controller per frame; each adds this page's origin to its frame's
  // origins=, so the frame may post its answers here (and nowhere else).
  window.quizFrames = [].map.call(document.querySelectorAll("iframe.quiz"), function (frame) {
    var sim = gpuscopeEmbed(frame);
    sim.on("answer", onAnswer(frame.id));
    return sim;
  });
  render();
})();
