"""How many CalDAV syncs run at once against one calendar host unless told otherwise: read by the
settings every command parses (server/commands/settings.py), which load none of the jobs."""

from __future__ import annotations

# Four at once per calendar host. Large providers (iCloud, Fastmail, Google) throttle each
# client address with 429s well before the dozens of connections a fleet of workers could
# open, and a self-hosted Radicale or Nextcloud on a small machine serialises writes anyway
# (Radicale holds one storage lock per write), so more parallel syncs only queue up there.
# Four keeps a slow server busy without looking like a flood; CONFCAL_CALDAV_PER_HOST changes it
# (read once, with the other settings, in server/commands/settings.py).
PER_HOST = 4
