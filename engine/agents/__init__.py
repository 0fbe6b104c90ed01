"""One folder per agent behind one small protocol (docs/agents.md).

Each ``engine/agents/<agent>/`` (pi, OpenClaw, Claude Code, Codex) knows where that agent keeps its sessions,
its config files, its window and compaction line, and how its records read; the rest of the engine asks
:mod:`engine.agents.registry` and the protocols of :mod:`engine.agents.protocol`. Discovery lives here too (it
asks the registry for every agent's roots), with :func:`engine.agents.session_reader.open_reader`, the entry log
of any session.
"""
