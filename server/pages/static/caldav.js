// "Sync to my calendar": find the attendee's calendars from a server or an e-mail address
// (api/picks/{token}/caldav/calendars), let them choose one or a new one, attach it to the pick set
// (api/picks/{token}/caldav), show how its syncs go, detach it. The picks script announces each pick set document it gets
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
  // Counts the status reads and the attaches' and detaches' answers: a read's answer is shown
  // only when no other came after the read was asked, so a read in flight at a detach (the
  // poll's, on a slow link) cannot show the calendar as synced again after "Stopped syncing.".
  var answers = 0;
  var choice = document.getElementById("caldav-choice");
  var choices = document.getElementById("caldav-choices");
  var account = document.getElementById("caldav-account");
  var presetHint = document.getElementById("caldav-preset-hint");
  var newName = document.getElementById("caldav-new-name");
  var found = null;  // the last discovery's answer, while the attendee chooses
  var STATES = {
    needs_credentials: "The calendar refused the password: enter a new app password to resume",
    detaching: "Being detached"
  };
  var PRESETS = {
    icloud: {
      server: "https://caldav.icloud.com",
      hint: "User name: your Apple ID. Password: an app-specific password (Apple ID: Sign-In and Security, App-Specific Passwords)."
    },
    fastmail: {
      server: "https://caldav.fastmail.com",
      hint: "User name: your Fastmail address. Password: an app password with calendar access (Settings: Privacy & Security, Integrations)."
    },
    nextcloud: {
      server: "",
      hint: "Server: your Nextcloud's address, such as https://cloud.example.org. Password: an app password (Personal settings: Security, Devices & sessions)."
    },
    google: {
      hint: "Google Calendar offers no password access for CalDAV: it wants you to sign in with Google, which this server cannot do for you. Subscribe to your picks' feed instead (Subscribe, above): Google Calendar then keeps it up to date by itself."
    },
    other: { server: "", hint: "" }
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

  // What the calendar's state is now: "Syncing" only while a sync is wanted and not yet done.
  function state(doc) {
    if (STATES[doc.state]) return STATES[doc.state];
    if (doc.state !== "active") return doc.state;
    if (doc.sync_pending) return "Syncing";
    if (doc.last_result === "ok") return "Synced";
    if (doc.last_result) return "Sync failed";
    return "Attached";
  }

  function show(doc) {
    clearTimeout(poll);
    choice.hidden = true;
    if (!doc) {
      summary.textContent = "";
      detail.textContent = "";
      detachLine.hidden = true;
      form.hidden = false;
      return;
    }
    summary.textContent = state(doc) + ": " + doc.url + " (" + doc.username + ")";
    var parts = [];
    if (doc.sync_pending) parts.push("A sync is under way.");
    if (doc.last_sync) {
      parts.push("Last sync " + when(doc.last_sync) + ": "
        + (doc.last_result === "ok" ? counts(doc.counts) + "." : "failed."));
    }
    if (doc.counts && doc.counts.elsewhere) {
      parts.push(doc.counts.elsewhere + (doc.counts.elsewhere === 1 ? " event was" : " events were")
        + " already in another calendar; left alone.");
    }
    if (doc.checks_writes) {
      parts.push("This server does not check whether an event changed before it is overwritten or"
        + " deleted, so confcal reads and compares each event before it writes.");
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
    var mine = ++answers;
    var response;
    try {
      response = await fetch(url(), { cache: "no-store" });
    } catch (e) {
      return;  // offline: keep what is shown
    }
    var doc = response.ok ? await answer(response) : null;
    if (mine !== answers) return;
    if (response.status === 404) { show(null); return; }  // the pick set is gone
    if (doc) show(doc.state === "detached" ? null : doc);
  }

  async function post(path, sent) {
    return fetch(path, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(sent)
    });
  }

  function credentials() {
    return { username: form.elements.username.value.trim(), password: form.elements.password.value };
  }

  // One calendar's URL as the server lists it: with the trailing slash of a collection.
  function collection(text) {
    return /\/$/.test(text) ? text : text + "/";
  }

  // A URL with a path is perhaps one calendar's own address, which some servers cannot be asked
  // to list from: attaching it as given is then the way.
  function calendarLike(text) {
    var match = /^https?:\/\/[^\/]+(\/.*)$/i.exec(text);
    return Boolean(match && match[1].replace(/\/+$/, ""));
  }

  async function attach(wanted) {
    summary.textContent = "Connecting to your calendar…";
    var response = await post(url(), wanted);
    var doc = await answer(response);
    answers++;
    if (!response.ok) {
      summary.textContent = "";
      fail("Your calendar could not be attached: " + (doc.error || response.status));
      return;
    }
    form.elements.password.value = "";
    found = null;
    show(doc);
  }

  function offer(doc) {
    found = doc;
    choices.textContent = "";
    doc.calendars.forEach(function (calendar, i) {
      var line = document.createElement("p");
      var radio = document.createElement("input");
      radio.type = "radio";
      radio.name = "calendar";
      radio.id = "caldav-choice-" + i;
      radio.value = calendar.url;
      radio.disabled = !calendar.events;
      var label = document.createElement("label");
      label.htmlFor = radio.id;
      if (calendar.color) {
        var swatch = document.createElement("span");
        swatch.className = "caldav-swatch";
        swatch.setAttribute("aria-hidden", "true");
        swatch.style.backgroundColor = calendar.color.slice(0, 7);
        label.appendChild(swatch);
      }
      label.appendChild(document.createTextNode(calendar.name + (calendar.events ? "" : " (takes no events)")));
      line.appendChild(radio);
      line.appendChild(document.createTextNode(" "));
      line.appendChild(label);
      choices.appendChild(line);
    });
    if (!newName.value) newName.value = conferenceName();
    summary.textContent = "";
    choice.hidden = false;
    var first = choice.querySelector("input[type=radio]:not([disabled])");
    if (first) first.focus();
  }

  function conferenceName() {
    var heading = document.querySelector("h1");
    return (heading && heading.textContent.trim()) || document.title;
  }

  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    if (!token) return;
    // Enter in the choice (the new calendar's name) means "use it", not "look again".
    if (!choice.hidden && choice.contains(document.activeElement)) {
      await useChosen();
      return;
    }
    problem.hidden = true;
    choice.hidden = true;
    submit.disabled = true;
    var given = form.elements.url.value.trim();
    var who = credentials();
    summary.textContent = "Looking for your calendars…";
    try {
      var response = await post(url() + "/calendars",
        { server: given, username: who.username, password: who.password });
      var doc = await answer(response);
      if (response.ok) {
        var same = doc.calendars.filter(function (c) { return c.url === collection(given); });
        if (same.length === 1) {
          await attach({ url: same[0].url, username: who.username, password: who.password });
        } else {
          offer(doc);
        }
      } else if (calendarLike(given)) {
        await attach({ url: given, username: who.username, password: who.password });
      } else {
        summary.textContent = "";
        fail("No calendars found: " + (doc.error || response.status));
      }
    } catch (e) {
      summary.textContent = "";
      fail("Your calendar could not be attached: no connection to this server.");
    } finally {
      submit.disabled = false;
    }
  });

  var use = document.getElementById("caldav-use");

  async function useChosen() {
    if (!found) return;
    problem.hidden = true;
    var chosen = choice.querySelector("input[name=calendar]:checked");
    if (!chosen) {
      fail("Choose a calendar, or a new one.");
      return;
    }
    var who = credentials();
    var wanted = { url: chosen.value, username: who.username, password: who.password };
    if (chosen.id === "caldav-new") {
      var name = newName.value.trim();
      if (!name) {
        fail("Give the new calendar a name.");
        return;
      }
      wanted.url = found.home;
      wanted.new_calendar = name;
    }
    use.disabled = true;
    try {
      await attach(wanted);
    } catch (e) {
      summary.textContent = "";
      fail("Your calendar could not be attached: no connection to this server.");
    } finally {
      use.disabled = false;
    }
  }

  use.addEventListener("click", useChosen);

  newName.addEventListener("focus", function () { document.getElementById("caldav-new").checked = true; });

  Array.prototype.forEach.call(document.querySelectorAll("#caldav-presets button"), function (button) {
    button.addEventListener("click", function () {
      var preset = PRESETS[button.dataset.preset];
      Array.prototype.forEach.call(document.querySelectorAll("#caldav-presets button"), function (b) {
        b.setAttribute("aria-pressed", String(b === button));
      });
      presetHint.textContent = preset.hint;
      presetHint.hidden = !preset.hint;
      account.hidden = !("server" in preset);
      choice.hidden = true;
      if ("server" in preset) {
        form.elements.url.value = preset.server;
        (preset.server ? form.elements.username : form.elements.url).focus();
      }
    });
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
    answers++;
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
