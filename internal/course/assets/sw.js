/* gpuscope service worker (written by `gpuscope site`, internal/course).
 *
 * It sits at the site's root so that its scope covers the course and the
 * simulator alike. Network first: every same-origin GET goes to the
 * network as it would without this worker, and a successful answer is
 * kept in the cache; only when the network fails does the cached copy
 * answer. So nothing is ever served stale while online, and the pages a
 * reader has opened (and the simulator, once it has loaded) still work
 * offline. The cache's name carries a hash of the course's files: a new
 * build starts a new cache and drops the old ones.
 */
"use strict";

var CACHE = "gpuscope-__VERSION__";
var PREFIX = "gpuscope-";

self.addEventListener("install", function () {
  self.skipWaiting();
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (names) {
    return Promise.all(names.filter(function (n) {
      return n.indexOf(PREFIX) === 0 && n !== CACHE;
    }).map(function (n) { return caches.delete(n); }));
  }).then(function () { return self.clients.claim(); }));
});

// cacheable: a whole, plain answer from this origin.
function cacheable(res) {
  return res && res.status === 200 && res.type === "basic";
}

self.addEventListener("fetch", function (event) {
  var req = event.request;
  if (req.method !== "GET" || new URL(req.url).origin !== self.location.origin) return;
  if (req.headers.has("range")) return; // partial answers cannot be cached
  if (req.cache === "only-if-cached" && req.mode !== "same-origin") return;
  event.respondWith(fetch(req).then(function (res) {
    if (cacheable(res)) {
      var copy = res.clone();
      event.waitUntil(caches.open(CACHE).then(function (c) { return c.put(req, copy); }).catch(function () {}));
    }
    return res;
  }, function (err) {
    return caches.open(CACHE).then(function (c) {
      return c.match(req, {ignoreVary: true});
    }).then(function (hit) {
      if (hit) return hit;
      throw err;
    });
  }));
});

// {type: "precache", urls}: keep these pages (a course page's own files)
// for offline reading, fetching those not cached yet; answers on the
// message's port when done.
self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type !== "precache" || !Array.isArray(data.urls)) return;
  var port = event.ports && event.ports[0];
  event.waitUntil(caches.open(CACHE).then(function (c) {
    return Promise.all(data.urls.filter(function (u) {
      try {
        return new URL(u).origin === self.location.origin;
      } catch (e) {
        return false;
      }
    }).map(function (u) {
      return c.match(u, {ignoreVary: true}).then(function (hit) {
        if (hit) return null;
        return fetch(u).then(function (res) {
          if (cacheable(res)) return c.put(u, res);
          return null;
        });
      }).catch(function () { return null; });
    }));
  }).then(function () {
    if (port) port.postMessage({type: "precached"});
  }));
});
