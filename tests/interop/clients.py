"""The seven calendar clients the agreement tests read every feed with (see conftest.py)."""

CLIENTS = ("icalendar", "ical", "vobject", "ical.js", "node-ical", "ts-ics", "khal")
JS_PARSERS = ("ical.js", "node-ical", "ts-ics")  # run through node by parse_ics.mjs
