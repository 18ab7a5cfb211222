// "Send my picks to my calendar by e-mail": ask for invitations of the pick set
// (api/picks/{token}/invitations), show their state, stop them. The picks script announces each
// pick set document it gets ("confcal:picks" event). The section stays hidden on a server that
// sends no mail (the state says "offered": false) and on the static site (no API at all).
(function () {
  "use strict";

  var section = document.getElementById("invitations");
  if (!section) return;
  var form = document.getElementById("invitations-form");
  var problem = document.getElementById("invitations-error");
  var status = document.getElementById("invitations-status");
  var stopLine = document.getElementById("invitations-stop-line");
  var submit = document.getElementById("invitations-submit");
  var apiUrl = document.body.dataset.api;
  var token = null;
  var poll = null;
  // Counts the state reads and the asks' and stops' answers: a read's answer is shown only when
  // no other came after the read was asked, so a read in flight at a stop (the poll's, on a slow
  // link) cannot show the invitations as pending again after "Stopped".
  var answers = 0;

  function url() { return apiUrl + "/" + encodeURIComponent(token) + "/invitations"; }

  function fail(message) {
    problem.textContent = message;
    problem.hidden = false;
  }

  function when(iso) {
    return new Date(iso).toLocaleString(undefined, {
      day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"
    });
  }

  function show(doc) {
    clearTimeout(poll);
    section.hidden = false;
    if (!doc || doc.state === "none") {
      status.textContent = "";
      stopLine.hidden = true;
      form.hidden = false;
      return;
    }
    var parts = [];
    if (doc.state === "pending") {
      parts.push("We sent a link to " + doc.email + ": open it to start (it works for 24 hours).");
      poll = setTimeout(refresh, 10000);
    } else if (doc.state === "active") {
      parts.push("Invitations go to " + doc.email + ".");
      if (doc.last_sent) {
        parts.push("Last sent " + when(doc.last_sent) + ": " + doc.counts.requests + " invitations, "
          + doc.counts.cancels + " cancellations so far.");
      }
    } else {
      parts.push("Invitations to " + doc.email + " stopped: the mail server refused the address.");
    }
    if (doc.last_error && doc.state !== "failed") parts.push("Last problem: " + doc.last_error);
    else if (doc.last_error) parts.push(doc.last_error);
    status.textContent = parts.join(" ");
    stopLine.hidden = false;
    form.hidden = doc.state === "active";
  }

  async function answer(response) {
    return response.json().catch(function () { return { error: response.statusText }; });
  }

  async function refresh() {
    var mine = ++answers;
    var response;
    try {
      response = await fetch(url(), { cache: "no-store" });
    } catch (e) {
      return;  // offline: keep what is shown
    }
    var doc = response.ok ? await answer(response) : null;
    if (mine !== answers) return;
    if (response.status === 404) { section.hidden = true; return; }  // the pick set is gone
    if (!doc) return;
    if (!doc.offered) { section.hidden = true; return; }
    show(doc);
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (!token) return;
    problem.hidden = true;
    submit.disabled = true;
    try {
      var response = await fetch(url(), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: form.elements.email.value.trim() })
      });
      var doc = await answer(response);
      answers++;
      if (!response.ok) {
        fail("No invitations yet: " + (doc.error || response.status));
        return;
      }
      form.elements.email.value = "";
      show(doc);
    } catch (e) {
      fail("No invitations yet: no connection to this server.");
    } finally {
      submit.disabled = false;
    }
  });

  document.getElementById("invitations-stop").addEventListener("click", async function () {
    problem.hidden = true;
    var cancel = document.getElementById("invitations-cancel").checked;
    var response;
    try {
      response = await fetch(url() + "?cancel_sent=" + (cancel ? "1" : "0"), { method: "DELETE" });
    } catch (e) {
      fail("Could not stop the invitations: no connection to this server.");
      return;
    }
    answers++;
    if (response.ok || response.status === 404) {
      show(null);
      status.textContent = cancel ? "Stopped; the sessions sent were removed from your calendar."
        : "Stopped; the sessions sent stay in your calendar.";
      return;
    }
    var doc = await answer(response);
    fail("Could not stop the invitations: " + (doc.error || response.status));
  });

  document.addEventListener("confcal:picks", function (event) {
    var next = event.detail && event.detail.token;
    if (!next || next === token) return;
    token = next;
    refresh();
  });
})();
