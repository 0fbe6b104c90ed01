"""Four real compactions of each real session, for ``python -m bench.real --retention``.

Each session is cut into 4 parts by entries; part by part it is appended to a pi session file in a temporary
directory (the first entry of a part re-parented onto the compaction before it), and after each part the
session is compacted for real: the planner's ``summarize`` layer, then the ``jsonl`` controller appending the
compaction entry. The final compaction's summary, its size in tokens and the model's window are printed as JSON
per session. Only engine names the baseline commit has too are imported, so ``bench/real.py`` runs this file
against both trees (``PYTHONPATH`` set to the code under test).
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

PARTS = 4
KEEP_RECENT = 300
"""Tokens the planner keeps verbatim after each cut: small, so most of each part is summarized."""


def whole_token(token: str, text: str) -> bool:
    """``token`` occurs in ``text`` as a whole token (not inside a longer word or path)."""
    return re.search(r"(?<![\w./@~-])" + re.escape(token) + r"(?![\w/@-])", text) is not None


def compact_four_times(path: Path) -> dict[str, Any]:
    """The final summary after compacting ``path`` after each of its 4 parts, its tokens and the window."""
    from engine.agents.discovery import discover_sessions
    from engine.compaction.controllers import apply_compaction
    from engine.compaction.planner import plan_compaction
    from engine.config.compaction_settings import CompactionSettings
    from engine.config.loader import Config
    from engine.session.snapshot import SessionFollower

    lines = path.read_text(encoding="utf-8").splitlines()
    header, entries = json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line.strip()]
    size = -(-len(entries) // PARTS)
    parts = [entries[i:i + size] for i in range(0, len(entries), size)]
    with tempfile.TemporaryDirectory(prefix="ctxscope-real-retention-") as tmp:
        root = Path(tmp)
        workspace = root / "ws"
        workspace.mkdir()
        directory = root / "pi" / "sessions" / "--work--"
        directory.mkdir(parents=True)
        session = directory / f"{header.get('id') or 'session'}.jsonl"
        header["cwd"] = str(workspace)
        session.write_text(json.dumps(header) + "\n", encoding="utf-8")
        config = Config(compaction=CompactionSettings(workspace=workspace, controller="jsonl",
                                                      workspace_roots=(root,)))
        parent: str | None = None
        result: dict[str, Any] = {"summary": "", "summary_tokens": 0, "window": 0, "compactions": 0}
        clock = datetime(2030, 1, 1, tzinfo=UTC)
        for part in parts:
            if parent is not None and part:
                part = [dict(part[0], parentId=parent), *part[1:]]
            with session.open("a", encoding="utf-8") as handle:
                handle.write("".join(json.dumps(e) + "\n" for e in part))
            source = discover_sessions([session]).sessions[0]
            follower = SessionFollower(source, config)
            snapshot = follower.refresh()
            clock += timedelta(hours=1)
            plan = plan_compaction(snapshot, "summarize", keep_recent=KEEP_RECENT, config=config,
                                   load=follower.reader.read_object, state_dir=root / "ctx", now=clock,
                                   token_cache=follower.token_cache)
            if plan.blocked:
                print(plan.blocked, file=sys.stderr)
                parent = part[-1].get("id") if part else parent
                continue
            applied = apply_compaction(plan, follower=follower, config=config, state_dir=root / "ctx")
            parent = applied.entry_ids[-1]
            result = {"summary": plan.summary, "summary_tokens": plan.summary_tokens,
                      "window": snapshot.window.tokens or 0, "compactions": result["compactions"] + 1}
        return result


def _safe(path: Path) -> dict[str, Any]:
    try:
        return compact_four_times(path)
    except Exception as error:  # noqa: BLE001 -- a tree that crashes on a session keeps nothing of it
        return {"summary": "", "summary_tokens": 0, "window": 0, "compactions": 0, "error": repr(error)[:300]}


def main(argv: list[str]) -> int:
    print(json.dumps({path: _safe(Path(path)) for path in argv}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
