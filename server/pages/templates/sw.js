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
      // Offline: this exact page, else the same page without its filters, else a saved schedule
      // page that shows it (for a session or speaker page never opened), else the schedule.
      return cache.match(request).then(function (hit) {
        return hit || cache.match(request, { ignoreSearch: true });
      }).then(function (hit) {
        return hit || stand_in(cache, url);
      }).then(function (hit) {
        return hit || Response.error();
      });
    });
  }));
});

// What a page at `url` is about: a session's card or a speaker's cards on the schedule pages.
function wanted(url) {
  var path = url.pathname;
  var session = /\/sessions\/([^/]+)\/$/.exec(path);
  if (session) return 'id="session-' + session[1] + '"';
  var speaker = /\/speakers\/([^/]+)\/$/.exec(path);
  if (speaker) return new RegExp('data-speaker="([^"]* )?' + speaker[1].replace(/[^a-z0-9-]/g, "") + '[ "]');
  return null;
}

// A saved schedule page standing in for a page never opened: the one showing what the page is
// about (else the schedule itself), its links and files resolved from where it was saved (a
// <base>, which its policy then allows from this origin), marked for schedule.js to point at it.
function stand_in(cache, url) {
  var needle = wanted(url);
  return cache.keys().then(function (keys) {
    var pages = keys.filter(function (key) { return /\/$/.test(new URL(key.url).pathname); });
    var scope = pages.filter(function (key) { return key.url === self.registration.scope; });
    var others = pages.filter(function (key) { return key.url !== self.registration.scope; });
    var tried = (needle ? others.concat(scope) : scope);
    var next = function (i) {
      if (i >= tried.length) return needle && scope.length ? found(scope[0], "") : null;
      return cache.match(tried[i]).then(function (response) {
        if (!response || !/text\/html/.test(response.headers.get("content-type") || "")) return next(i + 1);
        return response.clone().text().then(function (text) {
          var hit = !needle || (typeof needle === "string" ? text.indexOf(needle) >= 0 : needle.test(text));
          return hit && /id="schedule"/.test(text) ? found(tried[i], text) : next(i + 1);
        });
      });
    };
    var found = function (key, text) {
      var made = text ? Promise.resolve(text) : cache.match(key).then(function (r) { return r.text(); });
      return made.then(function (page) {
        var base = '<base href="' + key.url + '" data-offline-for="' + url.pathname + '">';
        page = page.replace("base-uri 'none'", "base-uri 'self'").replace("<head>", "<head>" + base);
        return cache.match(key).then(function (original) {
          var headers = new Headers(original.headers);
          var policy = headers.get("content-security-policy");
          if (policy) headers.set("content-security-policy", policy.replace("base-uri 'none'", "base-uri 'self'"));
          headers.delete("content-length");
          headers.delete("content-encoding");
          return new Response(page, { status: 200, headers: headers });
        });
      });
    };
    return next(0);
  });
}
