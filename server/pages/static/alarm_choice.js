// The subscribe picker's reminder choice: every feed link on the page (webcal, https,
// Google's and Outlook's subscribe links, downloads, the link to copy, "subscribe to this view"
// and the personal feed) gets `alarm=N`, so the calendar app adds a reminder N minutes before
// each session (the server's ?alarm=, one VALARM per event). The choice is remembered per
// browser. Links the page rewrites later (filters, picks) are caught by a MutationObserver.
(function () {
  "use strict";
  var choice = document.getElementById("feed-alarm");
  if (!choice) return;
  var KEY = "confcal:alarm";
  var SCOPES = "#subscribe, #my-picks, #filters";

  // The feed URL itself (a path ending in .ics), or a subscribe link carrying one in its query
  // (Google's cid=webcal://..., Outlook's url=https://...).
  function withAlarm(href, minutes) {
    var url;
    try { url = new URL(href, document.baseURI); } catch (e) { return href; }
    if (/\.ics$/.test(url.pathname)) {
      if (minutes ? url.searchParams.get("alarm") === minutes : !url.searchParams.has("alarm")) return href;
      if (minutes) url.searchParams.set("alarm", minutes); else url.searchParams.delete("alarm");
      return url.protocol === "webcal:" || /^https?:/.test(href) ? url.href : url.pathname + url.search;
    }
    var changed = false;
    url.searchParams.forEach(function (value, name) {
      if (/^(webcal|https?):\/\/.*\.ics(\?|$)/.test(value)) {
        var inner = withAlarm(value, minutes);
        if (inner !== value) { url.searchParams.set(name, inner); changed = true; }
      }
    });
    return changed ? url.href : href;
  }

  var carried = false;  // whether the links carry a reminder now
  function apply() {
    var minutes = choice.value;
    // No reminder chosen and none on the links: nothing to change (the usual case, and a large
    // conference's subscribe section has thousands of links to parse).
    if (!minutes && !carried) return;
    carried = !!minutes;
    document.querySelectorAll(SCOPES).forEach(function (scope) {
      scope.querySelectorAll("a[href]").forEach(function (link) {
        var href = link.getAttribute("href");
        if (!href || href.charAt(0) === "#") return;
        var next = withAlarm(href, minutes);
        if (next !== href) link.setAttribute("href", next);  // unchanged: no mutation, no loop
      });
      scope.querySelectorAll("input.copy").forEach(function (input) {
        if (!input.value) return;
        var next = withAlarm(input.value, minutes);
        if (next !== input.value) input.value = next;
      });
    });
  }

  try { choice.value = localStorage.getItem(KEY) || ""; } catch (e) { /* private mode */ }
  if (!choice.value) choice.value = "";
  choice.addEventListener("change", function () {
    try { localStorage.setItem(KEY, choice.value); } catch (e) { /* private mode */ }
    apply();
  });
  new MutationObserver(apply).observe(document.body, {
    subtree: true, attributes: true, attributeFilter: ["href", "value"]
  });
  apply();
})();
