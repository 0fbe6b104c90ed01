"""Guard: what a view shows is computed by an engine query (engine/queries/), never in tui/.

The TUI's widgets, screens, dialogs and the command line draw or print the values the queries return; a module of
tui/ that defines one of those readers again, defines one of their value types, or imports the engine functions
the queries are built on (the checkpoint merge and staleness, message text and tokens, the cut, the tree folding,
the audit log reader) is computing a view's value itself, and the command line and an embedding program would
not see it (docs/architecture.md, Queries).
"""

from __future__ import annotations

import ast
from pathlib import Path

import engine

TUI = Path(__file__).resolve().parents[2] / "tui"

QUERIES = frozenset({"read_decisions", "read_checkpoints", "audit_history", "read_tail", "read_outline",
                     "measure_rows", "read_message", "read_top_consumers", "keep_recent_budget", "context_cut"})
"""The readers engine/queries owns: no tui module defines a function of one of these names."""
VALUES = frozenset({"NotedItem", "DecisionsDigest", "StoredCheckpoint", "HistoryItem", "TailMessage", "ContextRow",
                    "MessageText", "KeepRecent"})
"""The values they return: no tui module defines a class of one of these names."""
OWNED: dict[str, frozenset[str]] = {
    "engine.capture.dedup": frozenset({"is_semantic_duplicate"}),
    "engine.capture.thread": frozenset({"extract_thread"}),
    "engine.capture.redact": frozenset({"redact_secrets"}),
    "engine.compaction.item_status": frozenset({"completions", "stale_reason"}),
    "engine.checkpoints.store": frozenset({"latest_checkpoint"}),
    "engine.checkpoints.yaml_io": frozenset({"load_checkpoint"}),
    "engine.checkpoints.render": frozenset({"render_checkpoint"}),
    "engine.fs.audit": frozenset({"read_audit"}),
    "engine.accounting.measure": frozenset({"text_of", "message_tokens"}),
    "engine.accounting.context": frozenset({"find_cut_point"}),
    "engine.accounting.consumers": frozenset({"top_consumers"}),
    "engine.session.branches": frozenset({"branch_outline"}),
}
"""Engine functions a view's value is computed from: the queries call them, tui/ does not."""
FOLLOWER_INSIDES = frozenset({"token_cache", "reader"})
"""Follower attributes the views' queries read; views (widgets, screens, dialogs) hand the follower over instead."""
VIEWS = ("widgets", "screens", "dialogs")


def _modules() -> list[Path]:
    return sorted(TUI.rglob("*.py"))


def _owned_imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            owned = OWNED.get(node.module, frozenset())
            if node.module == "engine":  # the public API re-exports some of them
                owned = frozenset().union(*OWNED.values())
            found += [f"{node.module}.{alias.name}" for alias in node.names if alias.name in owned]
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name in OWNED]
    return found


def test_no_tui_module_computes_what_a_query_returns() -> None:
    problems = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = path.relative_to(TUI.parent)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in QUERIES:
                problems.append(f"{where}:{node.lineno} defines {node.name}()")
            if isinstance(node, ast.ClassDef) and node.name in VALUES:
                problems.append(f"{where}:{node.lineno} defines class {node.name}")
        problems += [f"{where} imports {name}" for name in _owned_imports(tree)]
        if where.parts[1] in VIEWS:
            problems += [f"{where}:{node.lineno} reads follower.{node.attr}" for node in ast.walk(tree)
                         if isinstance(node, ast.Attribute) and node.attr in FOLLOWER_INSIDES]
    assert problems == []


def test_every_query_is_public() -> None:
    assert set(engine.__all__) >= QUERIES | VALUES
    assert all(engine._HOMES[name].startswith("engine.queries.") for name in QUERIES | VALUES)


def test_the_guard_sees_a_reader_defined_in_a_widget() -> None:
    planted = ast.parse("from engine.fs.audit import read_audit\n\ndef read_tail(s, f, n):\n    return f.token_cache\n")
    assert _owned_imports(planted) == ["engine.fs.audit.read_audit"]
    assert [n.name for n in ast.walk(planted) if isinstance(n, ast.FunctionDef)] == ["read_tail"]
