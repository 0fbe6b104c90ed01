"""What the views show, computed once: one function per value a view or a command displays.

Each query takes the engine values a caller already holds (a snapshot, its follower, a state dir) and returns
frozen values; the TUI's widgets only draw them and the command line prints the same figures
(``docs/architecture.md``, Queries). Queries that re-read message text or walk every entry block: callers run them
in a worker while no refresh of the follower runs.
"""
