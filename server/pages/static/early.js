// Runs in <head>, before the body is laid out, so what the page will show takes its space at the
// first paint and nothing moves later (CLS): whether today is a day of the conference (the schedule
// page keeps a box of fixed height for now and next), whether the viewer's clock shows other times
// than the conference's (each card keeps a line for the viewer's time), and the grid or list
// chosen on this device. Tiny and parser-blocking on purpose; everything else waits for schedule.js.
(function () {
  "use strict";
  var data = document.currentScript.dataset;
  var html = document.documentElement;
  function day(zone, moment) {
    return new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" })
      .format(moment);
  }
  function clock(zone, moment) {
    return new Intl.DateTimeFormat("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" })
      .format(moment);
  }
  var now = new Date();
  try {
    var today = day(data.zone, now);
    // Before the day change (a night's sessions) it is still the evening's conference day.
    if (clock(data.zone, now) < (data.dayChange || "00:00")) {
      today = new Date(Date.parse(today + "T00:00:00Z") - 864e5).toISOString().slice(0, 10);
    }
    if (today >= data.startDate && today <= data.endDate) html.classList.add("during");
    var viewer = Intl.DateTimeFormat().resolvedOptions().timeZone;
    var noon = new Date(data.startDate + "T12:00:00Z");
    if (viewer && viewer !== data.zone && clock(viewer, noon) !== clock(data.zone, noon)) {
      html.classList.add("other-zone");
    }
  } catch (e) { /* an unknown zone: the page shows the conference's times only */ }
  try {
    var layout = localStorage.getItem("confcal:layout");
    if (layout === "list" || layout === "grid") html.dataset.layout = layout;
  } catch (e) { /* no storage: the layout follows the screen's width */ }
})();
