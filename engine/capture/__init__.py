"""State capture from transcripts: decisions, duplicates, the thread, open items, redaction, state files."""
