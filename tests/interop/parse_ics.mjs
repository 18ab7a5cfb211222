// Reads .ics files with a JavaScript calendar parser and prints, as JSON, every VEVENT's UID and
// its start and end as UTC instants. One process serves many files:
//   node parse_ics.mjs [--parser=ical.js|node-ical|ts-ics] a.ics b.ics ...
//   -> {"a.ics": [{"uid", "start", "end", "zone", "summary", "description", "location", "url",
//                  "alarms": [{"action", "trigger", "description"}]}], ...}
// ical.js (Mozilla's, in Thunderbird; the default): each file's VTIMEZONEs are registered before
// its events are read, and forgotten after, so every file is read only with the zone definitions it
// carries (as Thunderbird reads a feed). node-ical (in many Node calendar apps) and ts-ics (a
// TypeScript parser that computes offsets from the VTIMEZONE it is given) read each file alone.
// A file a parser cannot read is {"error": "..."} instead of a list.
import { readFileSync } from "node:fs";
import ICAL from "ical.js";
import nodeIcal from "node-ical";
import { convertIcsCalendar, getEventEnd } from "ts-ics";

function utc(date) {
  return date.toISOString().replace(".000Z", "Z");
}

function icaljs(text) {
  ICAL.TimezoneService.reset();
  const calendar = new ICAL.Component(ICAL.parse(text));
  for (const vtimezone of calendar.getAllSubcomponents("vtimezone")) {
    ICAL.TimezoneService.register(vtimezone);
  }
  return calendar.getAllSubcomponents("vevent").map((vevent) => {
    const event = new ICAL.Event(vevent);
    return {
      uid: event.uid,
      start: utc(event.startDate.toJSDate()),
      end: utc(event.endDate.toJSDate()),
      zone: event.startDate.zone ? event.startDate.zone.tzid : null,
      summary: event.summary,
      description: event.description,
      location: event.location,
      url: vevent.getFirstPropertyValue("url"),
      // Each VALARM's TRIGGER as ical.js reads it (a duration, written back as RFC 5545 text).
      alarms: vevent.getAllSubcomponents("valarm").map((valarm) => ({
        action: valarm.getFirstPropertyValue("action"),
        trigger: valarm.getFirstPropertyValue("trigger").toString(),
        description: valarm.getFirstPropertyValue("description"),
      })),
    };
  });
}

function text(value) {
  // node-ical gives a parameterised property as {params, val}.
  return value && typeof value === "object" && "val" in value ? value.val : (value ?? null);
}

function nodeical(source) {
  const parsed = nodeIcal.sync.parseICS(source);
  return Object.values(parsed)
    .filter((item) => item.type === "VEVENT")
    .map((event) => ({
      uid: event.uid,
      start: utc(event.start),
      end: utc(event.end ?? event.start),
      zone: event.start.tz ?? null,
      summary: text(event.summary),
      description: text(event.description),
      location: text(event.location),
      url: text(event.url),
      alarms: [],
    }));
}

function tsics(source) {
  const calendar = convertIcsCalendar(undefined, source);
  return (calendar.events ?? []).map((event) => ({
    uid: event.uid,
    start: utc(event.start.date),
    end: utc(getEventEnd(event)),
    zone: event.start.local ? event.start.local.timezone : event.start.type === "DATE" ? "date" : "UTC",
    summary: event.summary ?? null,
    description: event.description ?? null,
    location: event.location ?? null,
    url: event.url ?? null,
    alarms: [],
  }));
}

const PARSERS = { "ical.js": icaljs, "node-ical": nodeical, "ts-ics": tsics };
let parse = icaljs;
const result = {};
for (const arg of process.argv.slice(2)) {
  if (arg.startsWith("--parser=")) {
    parse = PARSERS[arg.slice("--parser=".length)];
    continue;
  }
  try {
    result[arg] = parse(readFileSync(arg, "utf8"));
  } catch (error) {
    result[arg] = { error: String(error) };
  }
}
process.stdout.write(JSON.stringify(result));
