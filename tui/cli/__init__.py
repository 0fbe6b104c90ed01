"""The ``ctxscope`` command line: argument parsing and one module per group of subcommands.

It lives under ``tui/`` rather than at the top level to keep the project's layout; it imports Textual only when
the user asks for the TUI (``ctxscope``, ``ctxscope tui``, ``ctxscope demo``).
"""
