// "Your picks changed": the page remembers, per conference, the schedule version it
// last showed (localStorage). When api/changes lists a later version that moved, retitled,
// cancelled or restored one of this browser's picks, the note at the top says which sessions
// and what changed, until it is dismissed; dismissing remembers the newest version.
(function () {
  "use strict";
  var note = document.getElementById("picks-changed");
  if (!note || !window.fetch) return;
  var storageKey = document.body.dataset.storageKey;
  var seenKey = storageKey + ":version";
  var WORDS = { moved: "moved", retitled: "retitled", cancelled: "cancelled", restored: "back on the schedule" };

  function read(key) {
    try { return localStorage.getItem(key); } catch (e) { return null; }
  }
  function write(key, value) {
    try { localStorage.setItem(key, value); } catch (e) { /* private mode: nothing remembered */ }
  }
  function picks() {
    try {
      var saved = JSON.parse(read(storageKey) || "null");
      return saved && Array.isArray(saved.sessions) ? saved.sessions : [];
    } catch (e) {
      return [];
    }
  }

  function show(changes, newest) {
    var list = document.getElementById("picks-changed-list");
    list.textContent = "";
    changes.forEach(function (change) {
      var item = document.createElement("li");
      item.dataset.sessionId = change.id;
      var link = document.createElement("a");
      link.href = note.dataset.sessions + encodeURIComponent(change.id) + "/";
      link.textContent = change.title;
      item.appendChild(link);
      item.appendChild(document.createTextNode(" " + (WORDS[change.kind] || change.kind) + ": " + change.text));
      list.appendChild(item);
    });
    note.hidden = false;
    document.getElementById("picks-changed-dismiss").addEventListener("click", function () {
      write(seenKey, String(newest));
      note.hidden = true;
    });
  }

  fetch(note.dataset.changes, { cache: "no-cache" }).then(function (response) {
    return response.ok ? response.json() : null;
  }).then(function (doc) {
    if (!doc || typeof doc.version !== "number") return;
    var seen = parseInt(read(seenKey) || "", 10);
    if (isNaN(seen)) {  // first visit: nothing was shown before, so nothing changed since
      write(seenKey, String(doc.version));
      return;
    }
    var mine = new Set(picks());
    var found = [];
    doc.changes.forEach(function (version) {  // newest first
      if (version.version <= seen) return;
      Object.keys(version.sessions).sort().forEach(function (id) {
        if (!mine.has(id)) return;
        version.sessions[id].forEach(function (change) {
          found.push({ id: id, kind: change.kind, title: change.title, text: change.text });
        });
      });
    });
    if (found.length) {
      show(found, doc.version);
    } else {
      write(seenKey, String(doc.version));
    }
  }).catch(function () { /* offline: the note waits for the next visit */ });
})();
