"""The store's Alembic migrations: `env.py` (how Alembic runs here) and `versions/` (one file per
schema change, chained by `down_revision`). Applied by server.store.schema; see docs/architecture.md,
"Changing the schema", for how to add one."""
