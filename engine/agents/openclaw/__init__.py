"""OpenClaw: its state directory, sessions.json stores, SQLite store and openclaw.json (docs/openclaw.md)."""
