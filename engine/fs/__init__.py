"""Files on disk: atomic writes, byte counting, tail reads, the session lock, locked appends, the audit log,
where things live."""
