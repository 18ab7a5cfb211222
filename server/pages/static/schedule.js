// The pages' behaviour on top of the server-rendered HTML: live filters kept in the URL, search,
// now and next, the viewer's own time zone, picks kept on the server behind a token remembered
// in localStorage, and a service worker for offline use. No framework and nothing loaded from
// elsewhere; without this script every page still shows every session and link.
(function () {
  "use strict";

  var body = document.body;
  var root = document.getElementById("schedule");  // only on the schedule page
  var conferenceZone = body.dataset.timezone;
  var apiUrl = body.dataset.api;
  var storageKey = body.dataset.storageKey;
  var infoKey = storageKey + ":info";

  function all(selector, within) {
    return Array.prototype.slice.call((within || document).querySelectorAll(selector));
  }
  // Lower case without accents, so "valerian" finds "Valérian".
  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }
  // Intl formatters are costly to make (time zone data): one per zone and kind, kept.
  var formatters = {};
  function formatter(kind, zone, locale, options) {
    var key = kind + " " + zone;
    if (!formatters[key]) {
      formatters[key] = new Intl.DateTimeFormat(locale, Object.assign({ timeZone: zone }, options));
    }
    return formatters[key];
  }
  function weekday(date) {
    return formatter("weekday", conferenceZone, "en-GB", { weekday: "short" }).format(date);
  }
  function hhmm(date, zone) {
    return formatter("hhmm", zone, "en-GB", { hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
      .format(date);
  }
  function isoDay(date, zone) {
    return formatter("day", zone, "en-CA", { year: "numeric", month: "2-digit", day: "2-digit" })
      .format(date);
  }
  // The conference day a moment belongs to, as the server names days: the date in the
  // conference's zone, the day before while it is earlier than the day change (a night's
  // sessions are the evening's, on its page).
  var dayChange = body.dataset.dayChange || "00:00";
  function conferenceDay(date) {
    var day = isoDay(date, conferenceZone);
    if (hhmm(date, conferenceZone) >= dayChange) return day;
    return new Date(Date.parse(day + "T00:00:00Z") - 864e5).toISOString().slice(0, 10);
  }

  // ---- The viewer's own zone, only where it shows a different time ----
  var viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  function wall(zone) {
    return new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23"
    });
  }
  function localTimes(within) {
    if (!viewerZone || viewerZone === conferenceZone) return;
    var inConference = wall(conferenceZone);
    var inViewer = wall(viewerZone);
    var shortTime = new Intl.DateTimeFormat(undefined, {
      timeZone: viewerZone, hour: "2-digit", minute: "2-digit", timeZoneName: "short"
    });
    var made = {};  // by start and end: sessions share their times, and formatting is slow
    all("[data-start]", within).forEach(function (item) {
      var label = item.querySelector(".local-time");
      if (!label) return;
      var key = item.dataset.start + item.dataset.end;
      if (!(key in made)) {
        var start = new Date(item.dataset.start);
        var end = new Date(item.dataset.end);
        made[key] = inConference.format(start) === inViewer.format(start) ? "" : shortTime.formatRange
          ? shortTime.formatRange(start, end) + " your time"
          : shortTime.format(start) + " your time";
      }
      if (!made[key]) return;
      label.textContent = made[key];
      label.hidden = false;
    });
  }

  // ---- Picks ----
  var picked = new Set();
  var info = {};  // id -> [title, start, end, page link]: picks on days not on this page
  var token = null;
  var queue = Promise.resolve();
  var pending = 0;  // saves (or the restore) not finished yet
  var unsaved = false;  // a save failed for want of a connection: retried when it returns
  var bar = document.getElementById("my-picks");
  var feedLink = document.getElementById("personal-feed");
  var problem = document.getElementById("picks-error");
  function el(id) { return document.getElementById(id); }

  try { info = JSON.parse(localStorage.getItem(infoKey) || "{}") || {}; } catch (e) { info = {}; }
  function learn() {
    all("[data-session-id][data-start]").forEach(function (card) {
      var link = card.querySelector("a[data-session-link]")
        || (card.tagName === "LI" ? card.querySelector("a") : null);
      var title = card.querySelector(".title, h1") || link;
      var room = card.querySelector(".room");
      info[card.dataset.sessionId] = [
        title ? title.textContent.trim() : card.dataset.sessionId,
        card.dataset.start, card.dataset.end, link ? link.href : location.href,
        room ? room.textContent.trim() : ""
      ];
    });
  }

  // Server work runs one task at a time, in click order. The link is marked data-personal-feed
  // only while the server's set is the one on screen, so whoever reads it (a person, or a test
  // that waits for the mark) gets a feed that already holds every pick.
  function enqueue(task) {
    pending++;
    feedLink.removeAttribute("data-personal-feed");
    queue = queue.then(task).catch(function (e) { offline(e); }).then(function () {
      pending--;
      if (pending === 0 && token && !unsaved && problem.hidden) {
        feedLink.setAttribute("data-personal-feed", "");
      }
    });
  }
  function offline(error) {
    // fetch() rejects only when there is no answer at all: keep the picks, save them later.
    unsaved = true;
    problem.textContent = "You are offline: your picks are kept here and saved when the connection returns.";
    problem.hidden = false;
    return error;
  }

  function remembered() {
    try {
      var saved = JSON.parse(localStorage.getItem(storageKey) || "null");
      return saved && typeof saved === "object" ? saved : null;
    } catch (e) {
      return null;
    }
  }
  function remember() {
    try {
      var keep = {};
      picked.forEach(function (id) { if (info[id]) keep[id] = info[id]; });
      localStorage.setItem(storageKey, JSON.stringify({
        token: token, sessions: Array.from(picked), unsaved: unsaved
      }));
      localStorage.setItem(infoKey, JSON.stringify(keep));
    } catch (e) { /* private mode: picks still work for this visit */ }
  }

  function overlaps() {
    var spans = Array.from(picked).filter(function (id) { return info[id]; }).map(function (id) {
      return { id: id, title: info[id][0], start: Date.parse(info[id][1]), end: Date.parse(info[id][2]) };
    }).sort(function (a, b) { return a.start - b.start; });
    var found = [];
    for (var i = 0; i < spans.length; i++) {
      for (var j = i + 1; j < spans.length && spans[j].start < spans[i].end; j++) {
        found.push([spans[i], spans[j]]);
      }
    }
    return found;
  }

  function showPicks() {
    all('[data-action="pick"]').forEach(function (button) {
      var on = picked.has(button.closest("[data-session-id]").dataset.sessionId);
      button.setAttribute("aria-pressed", on ? "true" : "false");
    });
    all(".card[data-session-id]").forEach(function (card) {
      card.classList.toggle("picked", picked.has(card.dataset.sessionId));
    });
    if (!bar) return;  // a page without the picks bar (the directories)
    var n = picked.size;
    el("picks-count").textContent = String(n);
    el("picks-summary").textContent = n === 0
      ? "Nothing picked yet: use Pick on a session."
      : n + (n === 1 ? " session" : " sessions") + " picked. Subscribe once: your feed follows your picks.";
    var clash = overlaps();
    var clashing = new Set();
    clash.forEach(function (pair) { clashing.add(pair[0].id); clashing.add(pair[1].id); });
    var list = el("picks-list");
    list.textContent = "";
    Array.from(picked).filter(function (id) { return info[id]; }).sort(function (a, b) {
      return Date.parse(info[a][1]) - Date.parse(info[b][1]);
    }).forEach(function (id) {
      // "Sat 10:30 · Title · Room", an overlap marked on the line rather than spelled out.
      var item = document.createElement("li");
      var start = new Date(info[id][1]);
      var when = document.createElement("span");
      when.className = "when";
      when.textContent = weekday(start) + " " + hhmm(start, conferenceZone);
      var link = document.createElement("a");
      link.href = info[id][3];
      link.textContent = info[id][0];
      item.append(when, " ", link);
      if (info[id][4]) {
        var where = document.createElement("span");
        where.className = "where";
        where.textContent = info[id][4];
        item.append(" ", where);
      }
      if (clashing.has(id)) {
        var mark = document.createElement("span");
        mark.className = "clash";
        mark.textContent = "overlaps";
        item.append(" ", mark);
        item.className = "clashes";
      }
      list.append(item);
    });
    var flag = el("picks-overlap-flag");
    flag.hidden = el("picks-overlap").hidden = clash.length === 0;
    flag.textContent = clashing.size + " overlapping";
    el("picks-overlap").textContent = clashing.size + " of your picks overlap another: marked below.";
    if (root && onlyPickedShown()) applyFilters(false);
  }

  function showFeed(doc) {
    token = doc.token;
    feedLink.href = doc.feed;
    el("personal-feed-copy").value = doc.feed;
    el("picks-feed").href = doc.webcal;
    el("picks-feed").hidden = false;
    el("picks-sync").hidden = !el("caldav");
    el("personal-google").href = doc.google;
    el("personal-outlook").href = "https://outlook.live.com/calendar/0/addfromweb?url="
      + encodeURIComponent(doc.feed) + "&name=" + encodeURIComponent("My picks");
    var download = el("personal-download");
    download.href = doc.download;
    download.setAttribute("download", "my-picks.ics");
    el("picks-more").hidden = false;
    el("personal-qr-image").src = doc.qr;
    var share = new URL(body.dataset.home, location.href);
    share.search = "?picks=" + encodeURIComponent(doc.token);
    el("picks-share").value = share.href;
    el("picks-share-link").href = share.href;
    // For the "Sync to my calendar" form (caldav.js), which needs the pick set's token.
    document.dispatchEvent(new CustomEvent("confcal:picks", { detail: { token: doc.token } }));
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
      if (picked.size === 0) { unsaved = false; remember(); return; }  // no feed for nothing
      response = await send("POST", apiUrl);
    }
    var doc = await response.json().catch(function () { return { error: response.statusText }; });
    if (!response.ok) {
      problem.textContent = "Your picks could not be saved: " + (doc.error || response.status);
      problem.hidden = false;
      return;
    }
    unsaved = false;
    problem.hidden = true;
    showFeed(doc);
    remember();
  }

  function toggle(button) {
    var id = button.closest("[data-session-id]").dataset.sessionId;
    if (picked.has(id)) picked.delete(id); else picked.add(id);
    unsaved = true;  // until the server has it
    showPicks();
    remember();
    // Each save sends the whole set as it is then: the last one wins.
    enqueue(save);
  }

  async function restore() {
    var shared = new URLSearchParams(location.search).get("picks");
    var saved = remembered();
    if (shared) {
      // A link from another browser: adopt its pick set (and drop the token from the address bar).
      saved = { token: shared, sessions: [] };
      var clean = new URL(location.href);
      clean.searchParams.delete("picks");
      history.replaceState(null, "", clean.href);
    }
    if (!saved) return;
    token = typeof saved.token === "string" ? saved.token : null;
    (saved.sessions || []).forEach(function (id) { picked.add(id); });
    unsaved = !!saved.unsaved;
    showPicks();
    if (unsaved) return save();  // picked offline last time: the server has not seen them
    if (!token) return;
    // What is picked or unpicked while the server's set is on its way is applied to that set,
    // which the save queued behind this read then sends: the server's set alone would drop it.
    var before = new Set(picked);
    var response;
    try {
      response = await fetch(apiUrl + "/" + encodeURIComponent(token), { cache: "no-store" });
    } catch (e) {
      return;  // offline: the picks remembered here are all there is to show, nothing to save
    }
    if (response.status === 404) {  // the server forgot it (a new database): start over
      token = null;
      if (picked.size) return save();
      return;
    }
    if (!response.ok) return;
    var doc = await response.json();
    var kept = new Set(doc.sessions);
    picked.forEach(function (id) { if (!before.has(id)) kept.add(id); });
    before.forEach(function (id) { if (!picked.has(id)) kept.delete(id); });
    picked = kept;
    showFeed(doc);
    showPicks();
    remember();
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest('[data-action="pick"]');
    if (button) toggle(button);
  });
  var toggleButton = el("picks-toggle");
  if (bar) {
    el("picks-sync").addEventListener("click", function () {
      // The form is in the panel: open it, then the link scrolls to the form.
      if (el("picks-panel").hidden) toggleButton.click();
    });
    toggleButton.addEventListener("click", function () {
      var open = toggleButton.getAttribute("aria-expanded") !== "true";
      toggleButton.setAttribute("aria-expanded", open ? "true" : "false");
      el("picks-panel").hidden = !open;
    });
  }
  window.addEventListener("online", function () {
    showStatus();
    if (unsaved && bar) enqueue(save);
  });
  window.addEventListener("offline", showStatus);
  all("input.copy").forEach(function (input) {
    input.addEventListener("focus", function () { input.select(); });
  });

  // ---- Offline: the service worker, and when the data on screen was fetched ----
  function showStatus() {
    var status = el("data-status");
    if (navigator.onLine) { status.textContent = ""; return; }
    status.textContent = "You are offline.";
    if (!window.caches) return;
    caches.match(location.href, { ignoreSearch: true }).then(function (cached) {
      var fetched = cached && (cached.headers.get("x-confcal-fetched") || cached.headers.get("date"));
      if (!fetched) return;
      var at = new Date(fetched);
      status.textContent = "You are offline: this schedule was fetched on "
        + at.toLocaleDateString(undefined, { day: "numeric", month: "long" }) + " at "
        + at.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" }) + ".";
    });
  }
  if ("serviceWorker" in navigator && body.dataset.sw) {
    // After the page has loaded: installing fetches the static files, which can wait.
    var register = function () {
      navigator.serviceWorker.register(body.dataset.sw).catch(function () { /* no offline use */ });
    };
    if (document.readyState === "complete") register(); else window.addEventListener("load", register);
  }

  // ---- A feed's "More" is laid out when first opened (its ways in wait in a <noscript>) ----
  document.addEventListener("toggle", function (event) {
    var details = event.target;
    var holder = details.open && details.querySelector && details.querySelector(":scope > noscript.unfold");
    if (!holder) return;
    var range = document.createRange();
    range.selectNode(holder);
    var parsed = range.createContextualFragment(holder.textContent);
    all("input.copy", parsed).forEach(function (input) {
      input.addEventListener("focus", function () { input.select(); });
    });
    holder.replaceWith(parsed);
    var alarm = el("feed-alarm");  // the reminder choice applies to the new links too
    if (alarm && alarm.value) alarm.dispatchEvent(new Event("change"));
  }, true);

  // ---- The feed search: narrows the feed groups around it as you type ----
  // On the schedule pages the folded groups, on a kind's own page (subscribe/{kind}/) its one
  // long group; names are folded once, on the first search.
  var feedSearch = el("feed-search");
  if (feedSearch) {
    var feedGroups = null;
    feedSearch.addEventListener("input", function () {
      if (feedGroups === null) {
        feedGroups = all(".feeds", feedSearch.closest("details, section")).map(function (group) {
          var feeds = all(".feed", group).map(function (feed) {
            return { element: feed, name: fold(feed.dataset.name) };
          });
          return { element: group, feeds: feeds };
        });
      }
      var words = fold(feedSearch.value).split(/\s+/).filter(Boolean);
      feedGroups.forEach(function (group) {
        var any = false;
        group.feeds.forEach(function (feed) {
          var ok = words.every(function (w) { return feed.name.indexOf(w) >= 0; });
          feed.element.hidden = !ok;
          any = any || ok;
        });
        group.element.hidden = !any;
      });
    });
  }

  // ---- The schedule page: filters in the URL, search, now and next ----
  var cards = [];
  var expandAll = function () { return false; };
  var gridShown = function () {
    return window.matchMedia("(min-width: 900px)").matches && document.documentElement.dataset.layout !== "list";
  };
  var viewLinks = function () {};
  var applyFilters = function () {};
  var onlyPickedShown = function () { return false; };
  var tick = function () {};
  var filterOnLoad = function () {};
  if (root) {
    var form = el("filters");
    cards = all("#sessions [data-session-id]");
    // A long day's later slots wait in a <noscript> (_day.html) until they are needed: scrolled
    // near on a phone, at once for the grid, a search, a filter, now and next, or a link to a card.
    var expand = function (later) {
      var holder = later.querySelector("noscript");
      var range = document.createRange();
      range.selectNode(later);
      var parsed = range.createContextualFragment(holder ? holder.textContent : "");
      localTimes(parsed);
      later.replaceWith(parsed);
    };
    var expanding = false;
    var expandAll = function () {
      var waiting = all("[data-later]");
      if (!waiting.length || expanding) return false;
      expanding = true;
      waiting.forEach(expand);
      cards = all("#sessions [data-session-id]");
      haystack = null;
      learn();
      showPicks();
      expanding = false;
      return true;
    };
    if ("IntersectionObserver" in window) {
      var near = new IntersectionObserver(function (entries) {
        if (entries.some(function (entry) { return entry.isIntersecting; })) {
          near.disconnect();
          expandAll();
          applyFilters(false);
        }
      }, { rootMargin: "1200px 0px" });
      all("[data-later]").forEach(function (later) { near.observe(later); });
    }
    var search = el("filter-search");
    var selects = all("select[data-filter]", form);
    var onlyPicked = el("filter-picked");
    var haystack = null;  // built on the first search: most visits never search
    var textOf = function (card) {
      if (!haystack) {
        haystack = new Map(cards.map(function (c) {
          return [c, fold(all(".title, .speakers, .facts", c).map(function (part) {
            return part.textContent;
          }).join(" "))];
        }));
      }
      return haystack.get(card);
    };
    onlyPickedShown = function () { return onlyPicked.checked; };

    var params = new URLSearchParams(location.search);
    search.value = params.get("q") || "";
    onlyPicked.checked = params.get("picked") === "1";
    selects.forEach(function (select) {  // as the server chose them, unless it did not (a static host)
      var wanted = params.get(select.dataset.filter) || "";
      if (Array.from(select.options).some(function (option) { return option.value === wanted; })) select.value = wanted;
    });

    var matches = function (card, words) {
      for (var i = 0; i < selects.length; i++) {
        var wanted = selects[i].value;
        if (!wanted) continue;
        var values = (card.dataset[selects[i].dataset.filter] || "").split(" ").filter(Boolean);
        if (!(values.indexOf(wanted) >= 0 || (wanted === "-none" && values.length === 0))) return false;
      }
      if (onlyPicked.checked && !picked.has(card.dataset.sessionId)) return false;
      if (!words.length) return true;
      var text = textOf(card);
      return words.every(function (w) { return text.indexOf(w) >= 0; });
    };

    applyFilters = function (write) {
      if (all("[data-later]").length && !expanding) expandAll();
      var words = fold(search.value).split(/\s+/).filter(Boolean);
      var shown = 0;
      cards.forEach(function (card) {
        var ok = matches(card, words);
        if (card.hidden === ok) card.hidden = !ok;  // only touch what changes
        if (ok) shown++;
      });
      all("#sessions .slot").forEach(function (slot) {
        var empty = !slot.querySelector(".card:not([hidden])");
        if (slot.hidden !== empty) slot.hidden = empty;
      });
      compact(words.length > 0 || onlyPicked.checked || selects.some(function (select) { return select.value; }));
      el("result-count").textContent = shown === cards.length
        ? cards.length + " sessions"
        : "Showing " + shown + " of " + cards.length + " sessions";
      el("no-results").hidden = shown > 0;
      // The feed of this view: the same facet filters as feed parameters.
      var feed = new URLSearchParams();
      if (root.dataset.feedDay) feed.append("day", root.dataset.feedDay);
      var state = new URLSearchParams();
      // A day page's path names its day; the base page keeps it in the query string.
      var dayPage = root.hasAttribute("data-day-page");
      if (!dayPage && (root.dataset.feedDay || params.get("day"))) state.set("day", root.dataset.day);
      selects.forEach(function (select) {
        if (!select.value) return;
        feed.append(select.dataset.filter, select.value);
        state.append(select.dataset.filter, select.value);
      });
      if (search.value.trim()) state.set("q", search.value.trim());
      if (onlyPicked.checked) state.set("picked", "1");
      viewLinks(feed);
      countDays(words);
      var exact = !search.value.trim() && !onlyPicked.checked;
      document.querySelector(".this-view").classList.toggle("inexact", !exact);
      el("view-note").hidden = exact;
      if (write) {
        var search_ = state.toString();
        history.replaceState(null, "", location.pathname + (search_ ? "?" + search_ : "") + location.hash);
      }
      // The day tabs are day pages (days/{slug}/): they carry the filters, not the day.
      all(".day-tabs a").forEach(function (tab) {
        var there = new URLSearchParams(state);
        there.delete("day");
        var query = there.toString();
        tab.search = query ? "?" + query : "";
      });
    };

    // A filtered grid shows only the rooms with a session shown and the hours with one: columns
    // renumbered, empty rows closed up (and put back as they were when the filters are cleared).
    var compact = function (active) {
      all("#sessions section.day").forEach(function (section) {
        var table = section.querySelector(".timetable");
        var heads = section.querySelector(".room-heads");
        if (!table || !heads) return;
        var dayCards = all(".card", table);
        if (!table.dataset.rooms) {
          if (!active) return;
          table.dataset.rooms = table.style.getPropertyValue("--rooms");
          dayCards.forEach(function (card) {
            card.dataset.column = card.style.gridColumnStart;
            card.dataset.rows = card.style.gridRowStart + " " + card.style.gridRowEnd;
          });
        }
        var rooms = table.dataset.rooms;
        var names = Array.prototype.slice.call(heads.children, 1);
        if (!active) {
          dayCards.forEach(function (card) { card.style.gridColumnStart = card.dataset.column; });
          names.forEach(function (name) { name.hidden = false; });
          [table, heads].forEach(function (grid) { grid.style.setProperty("--rooms", rooms); });
          table.style.gridTemplateRows = "";
          all(".tick", table).forEach(function (tick) { tick.hidden = false; });
          return;
        }
        var rows = Number(table.style.getPropertyValue("--rows"));
        var covered = [];
        var used = {};
        dayCards.forEach(function (card) {
          if (card.hidden) return;
          used[card.dataset.column] = true;
          var span = card.dataset.rows.split(" ").map(Number);
          for (var row = span[0]; row < span[1]; row++) covered[row] = true;
        });
        var columns = Object.keys(used).map(Number).sort(function (a, b) { return a - b; });
        dayCards.forEach(function (card) {
          var at = columns.indexOf(Number(card.dataset.column));
          card.style.gridColumnStart = String(at >= 0 ? at + 2 : card.dataset.column);
        });
        names.forEach(function (name, i) { name.hidden = !used[String(i + 2)]; });
        [table, heads].forEach(function (grid) { grid.style.setProperty("--rooms", String(columns.length || 1)); });
        var template = [];
        for (var row = 1; row <= rows; row++) template.push(covered[row] ? "minmax(var(--slot), auto)" : "0");
        table.style.gridTemplateRows = template.join(" ");
        all(".tick", table).forEach(function (tick) { tick.hidden = !covered[Number(tick.style.gridRowStart)]; });
      });
    };

    // The list or the grid on a wide screen, remembered on this device (early.js applies it
    // before the first paint of the next visit).
    all("[data-layout-choice]").forEach(function (button) {
      var current = document.documentElement.dataset.layout || "grid";
      button.setAttribute("aria-pressed", String(button.dataset.layoutChoice === current));
      button.addEventListener("click", function () {
        var chosen = button.dataset.layoutChoice;
        document.documentElement.dataset.layout = chosen;
        if (chosen === "grid") expandAll();
        try { localStorage.setItem("confcal:layout", chosen); } catch (e) { /* for this visit only */ }
        all("[data-layout-choice]").forEach(function (other) {
          other.setAttribute("aria-pressed", String(other === button));
        });
      });
    });

    // The feed of this view: the filters as the feed's parameters; on a static host, which
    // ignores them, the catalogue's feed of the one filter chosen, or none for several.
    var viewLinks = function (feed) {
      var query = feed.toString();
      var base = root.dataset.feedBase;
      var link = document.querySelector("a[data-filtered-feed]");
      var webcalLink = document.querySelector("a[data-filtered-webcal]");
      var everyDay = document.querySelector("a[data-all-days-webcal]");
      var what = document.querySelector(".this-view .view-what");
      var webcal = function (href) { return href.replace(/^https?:\/\//, "webcal://"); };
      if (staticHost) {
        var chosen = selects.filter(function (select) { return select.value; });
        var path = null;
        if (!chosen.length) path = root.dataset.feedDay ? "feeds/day/" + root.dataset.feedDay + ".ics" : "feeds/all.ics";
        else if (chosen.length === 1 && chosen[0].value !== "-none") {
          path = "feeds/" + chosen[0].dataset.filter + "/" + chosen[0].value + ".ics";
        }
        var href = path && base.replace(/feeds\/all\.ics$/, path);
        link.hidden = webcalLink.hidden = !href;
        if (everyDay) everyDay.hidden = true;
        el("view-static").hidden = !!href;
        if (href) {
          link.href = href;
          webcalLink.href = webcal(href);
          what.textContent = chosen.length ? viewWhat(true) : viewWhat();
        }
        return;
      }
      link.href = base + (query ? "?" + query : "");
      webcalLink.href = webcal(base) + (query ? "?" + query : "");
      if (everyDay) {
        feed.delete("day");
        everyDay.href = webcal(base) + (feed.toString() ? "?" + feed.toString() : "");
      }
      what.textContent = viewWhat();
    };

    // What the view's feed holds, in words (page.py `view_what` says the same).
    var viewWhat = function (everyDay) {
      var chosen = selects.filter(function (select) { return select.value; }).map(function (select) {
        var label = form.querySelector('label[for="' + select.id + '"]').textContent.toLowerCase();
        return label + " " + select.options[select.selectedIndex].textContent;
      });
      var what = "the sessions" + (chosen.length ? " of " + chosen.join(", ") : "");
      var tab = root.dataset.feedDay && document.querySelector('.day-tabs a[data-day="' + root.dataset.feedDay + '"]');
      return what + (tab && !everyDay ? " on " + tab.textContent + " only" : " of every day");
    };

    // A search or filter covers every day: each day's matches, from search.json (fetched on the
    // first search: the cards of the other days are not on this page).
    var dayCounts = el("day-counts");
    var index = null;
    var countDays = function (words) {
      if (!dayCounts) return;
      var active = words.length || onlyPicked.checked || selects.some(function (select) { return select.value; });
      dayCounts.hidden = !active;
      if (!active) return;
      if (!index) {
        index = fetch(new URL("search.json", new URL(body.dataset.home, location.href)))
          .then(function (response) { return response.ok ? response.json() : null; })
          .catch(function () { return null; });
      }
      index.then(function (doc) {
        if (!doc) return;
        var at = {};
        doc.fields.forEach(function (name, i) { at[name] = i; });
        var counts = { all: 0 };
        doc.sessions.forEach(function (row) {
          for (var i = 0; i < selects.length; i++) {
            var wanted = selects[i].value;
            if (!wanted) continue;
            var values = row[at[selects[i].dataset.filter]].split(" ").filter(Boolean);
            if (!(values.indexOf(wanted) >= 0 || (wanted === "-none" && values.length === 0))) return;
          }
          if (onlyPicked.checked && !picked.has(row[at.id])) return;
          var text = row[at.text];
          if (!words.every(function (w) { return text.indexOf(w) >= 0; })) return;
          counts[row[at.day]] = (counts[row[at.day]] || 0) + 1;
          counts.all++;
        });
        var state = new URLSearchParams(location.search);
        state.delete("day");
        var query = state.toString();
        all("a[data-count-day]", dayCounts).forEach(function (link) {
          link.querySelector(".count").textContent = String(counts[link.dataset.countDay] || 0);
          link.search = query ? "?" + query : "";
        });
      });
    };

    form.addEventListener("input", function () { applyFilters(true); });
    form.addEventListener("change", function () { applyFilters(true); });
    form.addEventListener("submit", function (event) { event.preventDefault(); applyFilters(true); });
    var reset = form.querySelector("a.reset");
    reset.addEventListener("click", function (event) {
      event.preventDefault();
      search.value = "";
      onlyPicked.checked = false;
      selects.forEach(function (select) { select.value = ""; });
      applyFilters(true);
    });

    // ---- Now and next, every minute, on the days of the conference ----
    // Now: what runs, one line per room (sorted); next: what starts in the next 30 minutes, by
    // time then room. Lines, not copies of the cards: 29 rooms at FOSDEM still fit the box.
    var SOON = 30 * 60000;
    var nowNext = el("now-next");
    var html = document.documentElement;
    var conferenceDays = [body.dataset.startDate, body.dataset.endDate];
    var facts = null;  // per card, read once: its room, title, link and times
    var factsOf = function (card) {
      if (!facts) facts = new Map();
      var found = facts.get(card);
      if (!found) {
        var times = card.querySelectorAll(".time time");
        var room = card.querySelector(".room");
        var link = card.querySelector("a[data-session-link]");
        found = {
          id: card.dataset.sessionId,
          room: room ? room.textContent : "",
          title: link ? link.textContent : "",
          href: link ? link.href : "#" + card.id,
          start: Date.parse(card.dataset.start),
          end: Date.parse(card.dataset.end),
          from: times.length ? times[0].textContent : "",
          to: times.length > 1 ? times[1].textContent : ""
        };
        facts.set(card, found);
      }
      return found;
    };
    var line = function (item, withStart) {
      var row = document.createElement("li");
      row.dataset.sessionId = item.id;
      if (picked.has(item.id)) row.className = "picked";
      var room = document.createElement("span");
      room.className = "strip-room";
      room.textContent = item.room;
      var link = document.createElement("a");
      link.href = item.href;
      link.textContent = item.title;
      var time = document.createElement("span");
      time.className = "strip-time";
      time.textContent = withStart ? item.from : "until " + item.to;
      if (withStart) row.append(time, " ", room, " ", link);
      else row.append(room, " ", link, " ", time);
      return row;
    };
    var fill = function (strip, items, withStart) {
      var list = strip.querySelector(".strip-list");
      list.textContent = "";
      items.forEach(function (item) { list.append(line(item, withStart)); });
      strip.querySelector(".strip-empty").hidden = items.length > 0;
    };
    var byRoom = function (a, b) {
      return a.room.localeCompare(b.room, undefined, { numeric: true }) || a.start - b.start;
    };
    tick = function () {
      var now = Date.now();
      var today = conferenceDay(new Date(now));
      var during = today >= conferenceDays[0] && today <= conferenceDays[1];
      html.classList.toggle("during", during);
      all(".now-line").forEach(function (mark) { mark.hidden = true; });
      if (!during) return;
      if (all("[data-later]").length) {
        // Every session of today is needed: laid out in a task of its own, after the first
        // paint (the box keeps its size meanwhile, so filling it later moves nothing).
        setTimeout(function () { expandAll(); tick(); }, 0);
        return;
      }
      var live = cards.filter(function (card) { return !card.classList.contains("cancelled"); }).map(factsOf);
      var running = live.filter(function (item) { return item.start <= now && now < item.end; }).sort(byRoom);
      var soon = live.filter(function (item) { return item.start > now && item.start <= now + SOON; })
        .sort(function (a, b) { return a.start - b.start || byRoom(a, b); });
      fill(nowNext.querySelector("[data-now]"), running, false);
      fill(nowNext.querySelector("[data-next]"), soon, true);
      // The line across the timetable of today, between the slots it falls in.
      var jump = el("jump-now");
      var table = document.querySelector('section.day[data-day="' + today + '"] .timetable');
      if (!table) {
        // Today is another day's page: say so where now and next would be.
        var tab = document.querySelector('.day-tabs a[data-day="' + today + '"]');
        if (tab) jump.href = tab.href.split("#")[0] + "#now-line";
        jump.textContent = tab ? "Now and next are on today's page: " + tab.textContent : "Jump to now in the timetable";
        return;
      }
      var mark = table.querySelector(".now-line");
      var minutes = (now - Date.parse(table.dataset.first)) / 60000;
      var rows = Number(getComputedStyle(table).getPropertyValue("--rows")) || 1;
      if (minutes < 0 || minutes > rows * 5) return;
      mark.style.gridRow = String(1 + Math.floor(minutes / 5));
      mark.style.setProperty("--into", String((minutes % 5) / 5));
      var after = all(".slot", table).find(function (slot) {
        var card = slot.querySelector("[data-start]");
        return card && Date.parse(card.dataset.start) > now;
      });
      table.insertBefore(mark, after || null);
      mark.hidden = false;
      jump.href = "#" + mark.id;

    };

    filterOnLoad = function () {
      // The server applied the filters and search in the URL; "only my picks" is ours, and a
      // static host applies none of them.
      var asked = new URLSearchParams(location.search);
      ["day", "picked", "picks"].forEach(function (name) { asked.delete(name); });
      if (onlyPicked.checked || asked.toString() !== root.dataset.applied) applyFilters(false);
      else if (root.dataset.applied) { expandAll(); compact(true); }
      // A link to a card of a slot not laid out yet (a feed's link to a session).
      if (location.hash && !document.getElementById(location.hash.slice(1)) && expandAll()) {
        var target = document.getElementById(location.hash.slice(1));
        if (target) target.scrollIntoView();
      }
      else if (dayCounts && !dayCounts.hidden) countDays(fold(search.value).split(/\s+/).filter(Boolean));
    };
  }

  // ---- Offline at a session's or speaker's page never opened: the service worker answered with
  // a saved schedule page (sw.js `stand_in`); point at what the page would have shown.
  var standIn = document.querySelector("base[data-offline-for]");
  function pointAtStandIn() {
    if (!standIn) return;
    var path = standIn.dataset.offlineFor;
    var session = /\/sessions\/([^/]+)\/$/.exec(path);
    var speaker = /\/speakers\/([^/]+)\/$/.exec(path);
    expandAll();  // the card may be in a slot not laid out yet
    var target = session ? el("session-" + session[1]) : speaker ? all("[data-speaker]").find(function (card) {
      return card.dataset.speaker.split(" ").indexOf(speaker[1]) >= 0;
    }) : null;
    el("data-status").textContent = "You are offline and this page was not saved: "
      + (target ? (session ? "here is the session" : "here is a session of theirs") + " in the saved schedule."
        : "here is the saved schedule.");
    if (target) {
      target.classList.add("offline-target");
      target.scrollIntoView({ block: "center" });
    }
  }

  // ---- A static host (confcal build): offer only what works there ----
  // The server answers host.json with {"static": false}; a build writes {"static": true}.
  var staticHost = false;
  var hostChecked = fetch(new URL("host.json", new URL(body.dataset.home, location.href)))
    .then(function (response) { return response.ok ? response.json() : null; })
    .catch(function () { return null; })
    .then(function (doc) {
      if (!doc || doc.static !== true) return;
      staticHost = true;
      body.dataset.static = "true";
      var note = el("static-note");
      note.textContent = "This is a static copy of the schedule: picking sessions, your own feed, "
        + "reminders and feeds of several filters at once need a confcal server.";
      if (typeof doc.site === "string" && /^https?:\/\//.test(doc.site)) {
        var site = document.createElement("a");
        site.href = doc.site;
        site.textContent = "the conference's site";
        note.append(" More on ", site, ".");
      }
      note.hidden = false;
      var alarm = el("feed-alarm");
      if (alarm && alarm.value) { alarm.value = ""; alarm.dispatchEvent(new Event("change")); }
      if (root) viewLinks(new URLSearchParams());
    });

  // Start-up in two tasks, so no single one blocks input for long (Lighthouse's total blocking
  // time): first what changes the layout (before the first paint where possible, so nothing
  // shifts), then learning the cards and restoring the picks.
  localTimes(document);
  showStatus();
  if (root) tick();
  pointAtStandIn();
  setTimeout(function () {
    learn();
    if (root) {
      // The grid places every slot at once (and lays out none it does not show anyway).
      if (gridShown()) expandAll();
      filterOnLoad();
      setInterval(tick, 60000);
    }
    if (bar) bar.classList.add("ready");
    showPicks();
    hostChecked.then(function () {
      if (!staticHost && bar) enqueue(restore);
      body.dataset.ready = "true";
    });
  }, 0);
})();
