// The service worker that lets the schedule open without a connection, after one visit.
// Pages and the sessions document: network first, the last copy when the network fails (stamped
// with when it was fetched, which the page shows). Static files have content-hashed names, so
// a cached copy is always right. Picks and feeds are never cached: they must be the server's.
"use strict";
var CACHE = "confcal:" + self.registration.scope;
var VERSION = "__VERSION__";
var PRECACHE = __ASSETS__;

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return Promise.all(PRECACHE.map(function (path) {
      return fetch(path).then(function (response) { return keep(cache, path, response); });
    }));
  }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(self.clients.claim());
});

function keep(cache, request, response) {
  if (!response.ok) return response;
  return response.clone().blob().then(function (body) {
    var headers = new Headers(response.headers);
    headers.set("x-confcal-fetched", new Date().toISOString());
    headers.set("x-confcal-version", VERSION);
    return cache.put(request, new Response(body, { status: response.status, headers: headers }));
  }).then(function () { return response; });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  var url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  var path = url.pathname.slice(new URL(self.registration.scope).pathname.length);
  // Under this scope there may be other conferences' bases (c/{slug}/): match anywhere.
  if (/(^|\/)(api\/picks|p\/|feeds\/|qr\/)/.test(path) || /\.ics$/.test(path)) return;
  if (/(^|\/)static\//.test(path)) {
    event.respondWith(caches.open(CACHE).then(function (cache) {
      return cache.match(request).then(function (hit) {
        return hit || fetch(request).then(function (response) { return keep(cache, request, response); });
      });
    }));
    return;
  }
  event.respondWith(caches.open(CACHE).then(function (cache) {
    return fetch(request).then(function (response) {
      return keep(cache, request, response);
    }).catch(function () {
      // Offline: this exact page, else the same page without its filters, else the schedule.
      return cache.match(request).then(function (hit) {
        return hit || cache.match(request, { ignoreSearch: true });
      }).then(function (hit) {
        return hit || cache.match(self.registration.scope);
      }).then(function (hit) {
        return hit || Response.error();
      });
    });
  }));
});
