// The schedule page's behaviour on top of the server-rendered cards: day tabs, filters and search,
// the viewer's own time zone, and picks kept on the server behind a token remembered in
// localStorage. No framework and nothing loaded from elsewhere; without this script the page
// still lists every session with its links.
(function () {
  "use strict";

  var root = document.getElementById("schedule");
  if (!root) return;
  var form = document.getElementById("filters");
  var cards = Array.prototype.slice.call(document.querySelectorAll("[data-session-id]"));
  var days = Array.prototype.slice.call(document.querySelectorAll("section.day"));
  var tabs = Array.prototype.slice.call(form.querySelectorAll(".day-tabs a"));
  var search = document.getElementById("filter-search");
  var selects = Array.prototype.slice.call(form.querySelectorAll("select[data-filter]"));
  var onlyPicked = document.getElementById("filter-picked");
  var count = document.getElementById("result-count");
  var noResults = document.getElementById("no-results");
  var apiUrl = root.dataset.api;
  var storageKey = root.dataset.storageKey;

  // Lower case without accents, so "valerian" finds "Valérian".
  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }
  var haystack = new Map(cards.map(function (card) { return [card, fold(card.textContent)]; }));
  var picked = new Set();
  var known = new Set(cards.map(function (card) { return card.dataset.sessionId; }));

  // ---- Day tabs and filters ----
  // The first day, or the one holding what the URL points at (#day-… or #session-…).
  var currentDay = days.length ? days[0].dataset.day : null;
  try {
    var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    var targetDay = target && target.closest("section.day");
    if (targetDay) currentDay = targetDay.dataset.day;
  } catch (e) { /* a malformed #fragment: stay on the first day */ }

  function matches(card, words) {
    if (days.length > 1 && card.dataset.day !== currentDay) return false;
    for (var i = 0; i < selects.length; i++) {
      var wanted = selects[i].value;
      if (!wanted) continue;
      var kind = selects[i].dataset.filter;
      var values = (card.dataset[kind] || "").split(" ");
      if (values.indexOf(wanted) < 0) return false;
    }
    if (onlyPicked.checked && !picked.has(card.dataset.sessionId)) return false;
    var text = haystack.get(card);
    return words.every(function (w) { return text.indexOf(w) >= 0; });
  }

  function apply() {
    var words = fold(search.value).split(/\s+/).filter(Boolean);
    var shown = 0;
    cards.forEach(function (card) {
      var ok = matches(card, words);
      card.hidden = !ok;
      if (ok) shown++;
    });
    days.forEach(function (day) { day.hidden = days.length > 1 && day.dataset.day !== currentDay; });
    tabs.forEach(function (tab) {
      tab.setAttribute("aria-current", tab.dataset.day === currentDay ? "true" : "false");
    });
    count.textContent = shown === cards.length
      ? cards.length + " sessions"
      : "Showing " + shown + " of " + cards.length + " sessions";
    noResults.hidden = shown > 0;
  }

  tabs.forEach(function (tab) {
    tab.addEventListener("click", function (event) {
      event.preventDefault();
      currentDay = tab.dataset.day;
      history.replaceState(null, "", "#day-" + currentDay);
      apply();
    });
  });
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.addEventListener("submit", function (event) { event.preventDefault(); });
  // "reset" fires before the controls are reset.
  form.addEventListener("reset", function () { setTimeout(apply, 0); });

  // ---- The viewer's own zone, only where it shows a different time ----
  var conferenceZone = root.dataset.timezone;
  var viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  function wall(zone) {
    return new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23"
    });
  }
  if (viewerZone && viewerZone !== conferenceZone) {
    var inConference = wall(conferenceZone);
    var inViewer = wall(viewerZone);
    var shortTime = new Intl.DateTimeFormat(undefined, {
      timeZone: viewerZone, hour: "2-digit", minute: "2-digit", timeZoneName: "short"
    });
    cards.forEach(function (card) {
      var start = new Date(card.dataset.start);
      var end = new Date(card.dataset.end);
      if (inConference.format(start) === inViewer.format(start)) return;
      var label = card.querySelector(".local-time");
      label.textContent = shortTime.formatRange
        ? shortTime.formatRange(start, end) + " your time"
        : shortTime.format(start) + " your time";
      label.hidden = false;
    });
  }

  // ---- Picks ----
  var section = document.getElementById("my-picks");
  var summary = document.getElementById("picks-summary");
  var links = document.getElementById("picks-links");
  var problem = document.getElementById("picks-error");
  var feedLink = document.getElementById("personal-feed");
  var token = null;
  var queue = Promise.resolve();
  var pending = 0;  // saves (or the restore) not finished yet

  // Server work runs one task at a time, in click order. The link is marked data-personal-feed
  // only while the server's set is the one on screen, so whoever reads it (a person, or a test
  // that waits for the mark) gets a feed that already holds every pick.
  function enqueue(task) {
    pending++;
    feedLink.removeAttribute("data-personal-feed");
    queue = queue.then(task).catch(function (e) { fail(e.message); }).then(function () {
      pending--;
      if (pending === 0 && token && problem.hidden) feedLink.setAttribute("data-personal-feed", "");
    });
  }

  function remembered() {
    try {
      var saved = JSON.parse(localStorage.getItem(storageKey) || "null");
      return saved && typeof saved.token === "string" ? saved : null;
    } catch (e) {
      return null;
    }
  }
  function remember() {
    try {
      localStorage.setItem(storageKey, JSON.stringify({ token: token, sessions: Array.from(picked) }));
    } catch (e) { /* private mode: picks still work for this visit */ }
  }

  function showPicks() {
    cards.forEach(function (card) {
      var on = picked.has(card.dataset.sessionId);
      card.classList.toggle("picked", on);
      var button = card.querySelector('[data-action="pick"]');
      if (button) button.setAttribute("aria-pressed", on ? "true" : "false");
    });
    var n = picked.size;
    summary.textContent = n === 0
      ? "Nothing picked yet: use Pick on a session."
      : n + (n === 1 ? " session" : " sessions") + " picked. Subscribe once: your feed follows your picks.";
    if (onlyPicked.checked) apply();
  }

  function showFeed(doc) {
    token = doc.token;
    feedLink.href = doc.feed;
    feedLink.textContent = doc.feed;
    document.getElementById("personal-webcal").href = doc.webcal;
    document.getElementById("personal-google").href = doc.google;
    var download = document.getElementById("personal-download");
    download.href = doc.download;
    download.setAttribute("download", "my-picks.ics");
    links.hidden = false;
    document.getElementById("personal-qr-image").src = doc.qr;
    document.getElementById("personal-qr").hidden = false;
    remember();
  }

  function fail(message) {
    problem.textContent = "Your picks could not be saved: " + message;
    problem.hidden = false;
  }

  function send(method, url) {
    return fetch(url, {
      method: method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sessions: Array.from(picked) })
    });
  }

  async function save() {
    var response = null;
    if (token) response = await send("PUT", apiUrl + "/" + encodeURIComponent(token));
    if (!token || response.status === 404) {
      if (picked.size === 0) return;  // no feed needed for nothing
      response = await send("POST", apiUrl);
    }
    var doc = await response.json().catch(function () { return { error: response.statusText }; });
    if (!response.ok) return fail(doc.error || String(response.status));
    problem.hidden = true;
    showFeed(doc);
  }

  function toggle(button) {
    var id = button.closest("[data-session-id]").dataset.sessionId;
    if (picked.has(id)) picked.delete(id); else picked.add(id);
    showPicks();
    remember();
    // Each save sends the whole set as it is then: the last one wins.
    enqueue(save);
  }

  async function restore() {
    var saved = remembered();
    if (!saved) return;
    token = saved.token;
    // Shown at once, before the server answers; ids no longer on the page are left out.
    (saved.sessions || []).forEach(function (id) { if (known.has(id)) picked.add(id); });
    showPicks();
    var response = await fetch(apiUrl + "/" + encodeURIComponent(token), { cache: "no-store" });
    if (response.status === 404) {  // the server forgot it (a new database): start over
      token = null;
      if (picked.size) enqueue(save);
      return;
    }
    if (!response.ok) return;
    var doc = await response.json();
    picked = new Set(doc.sessions);
    showPicks();
    showFeed(doc);
  }

  document.querySelectorAll('[data-action="pick"]').forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () { toggle(button); });
  });
  document.querySelectorAll("input.copy").forEach(function (input) {
    input.addEventListener("focus", function () { input.select(); });
  });
  form.hidden = false;
  section.hidden = false;
  showPicks();
  apply();
  enqueue(restore);
})();
