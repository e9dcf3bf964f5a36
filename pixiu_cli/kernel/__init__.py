"""The kernel every area stands on: the database and its migrations (db/), the one clock, the settings, errors, the render primitives and the shared vocabulary."""
