"""Whether a Claude Code or Codex session may be compacted now: the one check the CLI, the TUI and the
controllers share (docs/claude-code.md, docs/codex.md).

The agent reads ctxscope's compaction when the session is resumed; a process running it now keeps its own memory
and would keep appending after the old leaf, so ctxscope refuses while one runs. Pruning rewrites pi tool
results, which these agents do not have.
"""

from __future__ import annotations

import os

from engine.agents.registry import adapter_named
from engine.stores.source import AGENT_FORMATS, SessionSource

__all__ = ["RESUME_COMMANDS", "agent_compaction_problem"]

RESUME_COMMANDS = {"claude-code-jsonl": "claude --resume {session}", "codex-jsonl": "codex resume {session}"}
"""How the user resumes a session so that the agent reads the compaction."""


def agent_compaction_problem(source: SessionSource, layer: str) -> str | None:
    """Why ``source`` may not be compacted with ``layer`` now; ``None`` when it may (or is not such a session)."""
    if source.format not in AGENT_FORMATS:
        return None
    adapter = adapter_named(source.format)
    if layer == "prune":
        return "prune rewrites pi tool results; this agent's sessions are compacted with a summary (press k)"
    writer = adapter.writer(source.path, source.session_id, os.environ) if adapter is not None else None
    if writer is not None:
        resume = RESUME_COMMANDS[source.format].format(session=source.session_id or source.key)
        return (f"{writer} is running this session and keeps its own memory of it; let its run end, then compact "
                f"and resume with `{resume}`")
    return None
