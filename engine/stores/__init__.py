"""Session stores: the session source value, discovery, entries, and the JSONL and SQLite readers."""
