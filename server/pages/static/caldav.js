// "Sync to my calendar": attach a CalDAV calendar to the pick set (api/picks/{token}/caldav),
// show how its syncs go, detach it. The picks script announces each pick set document it gets
// ("confcal:picks" event); until there is one, there is nothing to sync and the form stays hidden.
// The password goes to the server once, in the POST body; it is never shown or kept here.
(function () {
  "use strict";

  var section = document.getElementById("caldav");
  if (!section) return;
  var form = document.getElementById("caldav-form");
  var problem = document.getElementById("caldav-error");
  var summary = document.getElementById("caldav-summary");
  var detail = document.getElementById("caldav-detail");
  var detachLine = document.getElementById("caldav-detach-line");
  var submit = document.getElementById("caldav-submit");
  var apiUrl = document.body.dataset.api;
  var token = null;
  var poll = null;
  var STATES = {
    active: "Syncing",
    needs_credentials: "The calendar refused the password: enter a new app password to resume",
    detaching: "Being detached"
  };

  function url() { return apiUrl + "/" + encodeURIComponent(token) + "/caldav"; }

  function fail(message) {
    problem.textContent = message;
    problem.hidden = false;
  }

  function counts(c) {
    if (!c) return "";
    return "created " + c.created + ", updated " + c.updated + ", deleted " + c.deleted
      + ", unchanged " + c.unchanged + ", conflicts " + c.conflicts;
  }

  function when(iso) {
    return new Date(iso).toLocaleString(undefined, {
      day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"
    });
  }

  function show(doc) {
    clearTimeout(poll);
    if (!doc) {
      summary.textContent = "";
      detail.textContent = "";
      detachLine.hidden = true;
      form.hidden = false;
      return;
    }
    summary.textContent = (STATES[doc.state] || doc.state) + ": " + doc.url + " (" + doc.username + ")";
    var parts = [];
    if (doc.sync_pending) parts.push("A sync is under way.");
    if (doc.last_sync) {
      parts.push("Last sync " + when(doc.last_sync) + ": "
        + (doc.last_result === "ok" ? counts(doc.counts) + "." : "failed."));
    }
    if (doc.last_error && doc.last_result !== "ok") parts.push(doc.last_error);
    detail.textContent = parts.join(" ");
    detachLine.hidden = false;
    // New credentials are the way out of needs_credentials; otherwise the form is not needed.
    form.hidden = doc.state !== "needs_credentials";
    if (doc.state === "needs_credentials") {
      form.elements.url.value = doc.url;
      form.elements.username.value = doc.username;
    }
    if (doc.sync_pending) poll = setTimeout(refresh, 3000);
  }

  async function answer(response) {
    return response.json().catch(function () { return { error: response.statusText }; });
  }

  async function refresh() {
    var response;
    try {
      response = await fetch(url(), { cache: "no-store" });
    } catch (e) {
      return;  // offline: keep what is shown
    }
    if (response.status === 404) { show(null); return; }  // the pick set is gone
    if (!response.ok) return;
    var doc = await answer(response);
    show(doc.state === "detached" ? null : doc);
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (!token) return;
    problem.hidden = true;
    submit.disabled = true;
    summary.textContent = "Connecting to your calendar…";
    var body = JSON.stringify({
      url: form.elements.url.value.trim(),
      username: form.elements.username.value.trim(),
      password: form.elements.password.value
    });
    try {
      var response = await fetch(url(), {
        method: "POST", headers: { "content-type": "application/json" }, body: body
      });
      var doc = await answer(response);
      if (!response.ok) {
        summary.textContent = "";
        fail("Your calendar could not be attached: " + (doc.error || response.status));
        return;
      }
      form.elements.password.value = "";
      show(doc);
    } catch (e) {
      summary.textContent = "";
      fail("Your calendar could not be attached: no connection to this server.");
    } finally {
      submit.disabled = false;
    }
  });

  document.getElementById("caldav-detach").addEventListener("click", async function () {
    problem.hidden = true;
    var remove = document.getElementById("caldav-remove").checked;
    var response;
    try {
      response = await fetch(url() + (remove ? "?remove_events=1" : ""), { method: "DELETE" });
    } catch (e) {
      fail("Could not stop syncing: no connection to this server.");
      return;
    }
    if (response.ok || response.status === 404) {
      show(null);
      summary.textContent = remove ? "Stopped syncing; the synced events were removed." : "Stopped syncing.";
      return;
    }
    var doc = await answer(response);
    fail("Could not stop syncing: " + (doc.error || response.status));
  });

  document.addEventListener("confcal:picks", function (event) {
    var next = event.detail && event.detail.token;
    if (!next || next === token) return;
    token = next;
    section.hidden = false;
    refresh();
  });
})();
