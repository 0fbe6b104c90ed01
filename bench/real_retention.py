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


def summary_items(summary: str) -> list[str]:
    """The summary's items: each line with the indented lines that continue it (headings are items too, so a
    term in a heading never pairs with a term in an item under it: they are separate items)."""
    items: list[str] = []
    for line in summary.splitlines():
        if line.startswith(" ") and items and line.strip():
            items[-1] += " " + line.strip()
        elif line.strip():
            items.append(line)
    return items


def _holds(text: str, label: dict[str, Any]) -> bool:
    lowered = text.lower()
    return any(all(str(term).lower() in lowered for term in keys) for keys in label.get("keys") or [] if keys)


def states(summary: str, label: dict[str, Any]) -> bool:
    """Whether one item of ``summary`` holds every term of one of ``label``'s key alternatives: the summary states
    the label there. Terms found in different items ("diff" in one, "automerge" in another) do not count."""
    return any(_holds(item, label) for item in summary_items(summary))


def mentions(summary: str, label: dict[str, Any]) -> bool:
    """The looser rule of the first rounds: every term anywhere in the summary (an upper bound)."""
    return _holds(summary, label)


def whole_token(token: str, text: str) -> bool:
    """``token`` occurs in ``text`` as a whole token (not inside a longer word or path)."""
    return re.search(r"(?<![\w./@~-])" + re.escape(token) + r"(?![\w/@-])", text) is not None


def compact_four_times(path: Path) -> dict[str, Any]:
    """The final summary after compacting ``path`` after each of its 4 parts, its tokens and the window."""
    try:
        from engine.agents.discovery import discover_sessions
    except ModuleNotFoundError:  # the baseline tree (a832a5c) keeps discovery in engine.stores
        from engine.stores.discovery import discover_sessions  # type: ignore[import-not-found,no-redef]
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


RETAINED = ("decisions", "constraints", "decisions, anywhere", "constraints, anywhere", "identifiers",
            "identifiers, whole token")


def retention_counts(labels: dict[str, Any], result: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """Kept / labelled per measure for one session's final summary: decisions and constraints stated in one item
    (:func:`states`) and, as before, anywhere (:func:`mentions`); identifiers exact and as whole tokens."""
    summary = result["summary"]
    counts: dict[str, tuple[int, int]] = {}
    for kind in ("decisions", "constraints"):
        items = labels.get(kind) or []
        counts[kind] = (sum(1 for label in items if states(summary, label)), len(items))
        counts[f"{kind}, anywhere"] = (sum(1 for label in items if mentions(summary, label)), len(items))
    idents = labels.get("identifiers") or []
    counts["identifiers"] = (sum(1 for i in idents if i in summary), len(idents))
    counts["identifiers, whole token"] = (sum(1 for i in idents if whole_token(i, summary)), len(idents))
    return counts


def retention_report(labels: dict[str, dict[str, Any]], arms: dict[str, dict[str, dict[str, Any]]],
                     groups: dict[str, list[str]]) -> None:
    """Print the pooled retention of each group of sessions (``groups``: name -> session paths), every arm side
    by side, and the largest summary of the group as a share of the window. Only pooled lines are printed."""
    for name, paths in groups.items():
        if not paths:
            continue
        print(f"  [{name}: {len(paths)} sessions]")
        for measure in RETAINED:
            cells = []
            for arm, results in arms.items():
                kept = sum(retention_counts(labels[p], results[p])[measure][0] for p in paths)
                total = sum(retention_counts(labels[p], results[p])[measure][1] for p in paths)
                cells.append(f"{arm} {kept}/{total} {100 * kept / max(1, total):.1f}%")
            print(f"    {measure:<27} " + "   ".join(cells))
        worst = {arm: max(results[p]["summary_tokens"] / max(1, results[p]["window"]) for p in paths)
                 for arm, results in arms.items()}
        print("    largest summary             " + "   ".join(f"{arm} {100 * w:.2f}% of the window"
                                                          for arm, w in worst.items()) + "  (target <= 3%)")


def retention_misses(labels: dict[str, Any], result: dict[str, Any]) -> list[str]:
    """One line per labelled decision or constraint no single item of the final summary states (and whether its
    terms are at least all somewhere in it) and per identifier the summary does not hold exactly."""
    summary = result["summary"]
    lines = []
    for kind in ("decisions", "constraints"):
        for label in labels.get(kind) or []:
            if not states(summary, label):
                where = "mentioned, not in one item" if mentions(summary, label) else "not mentioned"
                lines.append(f"{kind[:-1]} {label.get('id', '?')} ({where}): {label.get('text', '')}")
    lines += [f"identifier not kept: {i}" for i in labels.get("identifiers") or [] if i not in summary]
    return lines


def misses_report(labels: dict[str, dict[str, Any]], results: dict[str, dict[str, Any]], paths: list[str]) -> None:
    """Print the retention misses of ``paths`` (one group's sessions only: never a held-out group's) per session."""
    for path in paths:
        lines = retention_misses(labels[path], results[path])
        print(f"  {Path(path).name}: {len(lines)} not kept")
        for line in lines:
            print(f"    {line}")


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
