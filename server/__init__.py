"""Everything of confcal that runs: store, HTTP app, CLI and CalDAV sync."""
