// Reads .ics files with Mozilla's ical.js (the parser in Thunderbird) and prints, as JSON,
// every VEVENT's UID and its start and end as UTC instants. One process serves many files:
//   node parse_ics.mjs a.ics b.ics ...
//   -> {"a.ics": [{"uid", "start", "end", "zone", "summary", "description", "location",
//                  "alarms": [{"action", "trigger", "description"}]}], ...}
// Each file's VTIMEZONEs are registered before its events are read, and forgotten after, so
// every file is read only with the zone definitions it carries (as Thunderbird reads a feed).
import { readFileSync } from "node:fs";
import ICAL from "ical.js";

function utc(time) {
  return time.toJSDate().toISOString().replace(".000Z", "Z");
}

const result = {};
for (const path of process.argv.slice(2)) {
  ICAL.TimezoneService.reset();
  const calendar = new ICAL.Component(ICAL.parse(readFileSync(path, "utf8")));
  for (const vtimezone of calendar.getAllSubcomponents("vtimezone")) {
    ICAL.TimezoneService.register(vtimezone);
  }
  result[path] = calendar.getAllSubcomponents("vevent").map((vevent) => {
    const event = new ICAL.Event(vevent);
    return {
      uid: event.uid,
      start: utc(event.startDate),
      end: utc(event.endDate),
      zone: event.startDate.zone ? event.startDate.zone.tzid : null,
      summary: event.summary,
      description: event.description,
      location: event.location,
      // Each VALARM's TRIGGER as ical.js reads it (a duration, written back as RFC 5545 text).
      alarms: vevent.getAllSubcomponents("valarm").map((valarm) => ({
        action: valarm.getFirstPropertyValue("action"),
        trigger: valarm.getFirstPropertyValue("trigger").toString(),
        description: valarm.getFirstPropertyValue("description"),
      })),
    };
  });
}
process.stdout.write(JSON.stringify(result));
