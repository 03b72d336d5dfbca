/* gpuscope course search (written by `gpuscope site`, internal/course).
 * No service and no dependencies: it loads search.json (every page of this
 * language and every glossary entry: url, title, headings, text) and keeps
 * the pages that contain every word of the query, upper or lower case
 * alike, as substrings, so Chinese needs no word splitting. Pages whose
 * title matches come first. Results are built as DOM nodes with
 * textContent: no page text is ever parsed as HTML.
 */
(function () {
  "use strict";

  var input = document.getElementById("q");
  var status = document.getElementById("search-status");
  var list = document.getElementById("results");
  if (!input || !status || !list) return;
  var index = null;

  function say(key, q, n) {
    status.textContent = (status.dataset[key] || "").replace("{q}", q || "").replace("{n}", String(n));
  }

  function terms(q) {
    return q.toLowerCase().split(/\s+/).filter(Boolean);
  }

  // score: -1 when a term is missing; else title matches weigh most,
  // then headings, then how early the text matches.
  function score(page, ts) {
    var title = page.title.toLowerCase();
    var heads = (page.headings || []).join(" \n ").toLowerCase();
    var text = page.text.toLowerCase();
    var s = 0;
    for (var i = 0; i < ts.length; i++) {
      var t = ts[i];
      var inTitle = title.indexOf(t) >= 0;
      var inHeads = heads.indexOf(t) >= 0;
      var at = text.indexOf(t);
      if (!inTitle && !inHeads && at < 0) return -1;
      if (inTitle) s += 1000;
      if (inHeads) s += 100;
      if (at >= 0) s += 10 + 10 / (1 + at / 500);
    }
    return s;
  }

  // mark appends text to el as text nodes, every term in a <mark>.
  function mark(el, text, ts) {
    var lower = text.toLowerCase();
    var i = 0;
    while (i < text.length) {
      var next = -1;
      var len = 0;
      ts.forEach(function (t) {
        var at = lower.indexOf(t, i);
        if (at >= 0 && (next < 0 || at < next || (at === next && t.length > len))) {
          next = at;
          len = t.length;
        }
      });
      if (next < 0) {
        el.appendChild(document.createTextNode(text.slice(i)));
        break;
      }
      if (next > i) el.appendChild(document.createTextNode(text.slice(i, next)));
      var m = document.createElement("mark");
      m.textContent = text.slice(next, next + len);
      el.appendChild(m);
      i = next + len;
    }
  }

  // snippet appends to el about 160 characters of text around the first
  // match, with every term marked.
  function snippet(el, text, ts) {
    var lower = text.toLowerCase();
    var first = -1;
    ts.forEach(function (t) {
      var at = lower.indexOf(t);
      if (at >= 0 && (first < 0 || at < first)) first = at;
    });
    var start = first > 60 ? first - 60 : 0;
    var end = Math.min(text.length, start + 160);
    if (start > 0) el.appendChild(document.createTextNode("… "));
    mark(el, text.slice(start, end), ts);
    if (end < text.length) el.appendChild(document.createTextNode(" …"));
  }

  function run(q) {
    while (list.firstChild) list.removeChild(list.firstChild);
    var ts = terms(q);
    if (!ts.length) {
      say("hint");
      return;
    }
    var hits = [];
    index.forEach(function (page, i) {
      var s = score(page, ts);
      if (s >= 0) hits.push({page: page, score: s, i: i});
    });
    hits.sort(function (a, b) { return b.score - a.score || a.i - b.i; });
    if (!hits.length) {
      say("none", q);
      return;
    }
    say(hits.length === 1 ? "count1" : "count", q, hits.length);
    hits.forEach(function (h) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = h.page.url;
      mark(a, h.page.title, ts);
      li.appendChild(a);
      var p = document.createElement("p");
      p.className = "snippet";
      snippet(p, h.page.text, ts);
      li.appendChild(p);
      list.appendChild(li);
    });
  }

  var q = new URLSearchParams(location.search).get("q") || "";
  input.value = q;
  say("loading");
  fetch("search.json").then(function (r) {
    if (!r.ok) throw new Error(r.status + " " + r.statusText);
    return r.json();
  }).then(function (data) {
    index = data;
    run(input.value);
    input.addEventListener("input", function () {
      run(input.value);
      var u = new URL(location.href);
      if (input.value) u.searchParams.set("q", input.value); else u.searchParams.delete("q");
      history.replaceState(null, "", u.href);
    });
  }).catch(function (e) {
    say("failed");
    console.warn("gpuscope course search:", e);
  });
})();
