"""One folder per agent behind one small protocol (docs/agents.md).

Each ``engine/agents/<agent>/`` knows where that agent keeps its sessions, how its records read, its context
rule, its window and compaction line and its config files; the rest of the engine asks
:mod:`engine.agents.registry` and :class:`engine.agents.protocol.AgentAdapter`, never the folder. Claude Code and
Codex live here; pi and OpenClaw are still read by :mod:`engine.stores` (their move is a later step).
"""
