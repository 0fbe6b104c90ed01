"""The contract between tui/ and the engine: the public API, plus exactly the deep imports named here.

The views (widgets, dialogs, screens) use only ``engine``'s public names (an import-linter contract, pyproject.toml).
The command line and the app's controllers use them too, and beyond them only the names below: the exporter, the
activity probes of ``watch``, pi's session views for ``inspect --json``, and a few policy constants. A new deep import
is a decision: export the name from engine/__init__.py, or add it here (docs/architecture.md, Public API).
"""

from __future__ import annotations

import ast
from pathlib import Path

import engine

TUI = Path(__file__).resolve().parents[2] / "tui"

DEEP_IMPORTS: dict[str, frozenset[str]] = {
    "engine.compaction.openclaw_gateway": frozenset({"GatewayOutcome"}),
    "engine.compaction.planner": frozenset({"LAYERS", "choose_controller"}),
    "engine.config.llm_settings": frozenset({"NEEDS_LLM"}),
    "engine.live.activity": frozenset({"ActivityRecorder", "HeadReader", "compaction_heads", "probe_loop_lag"}),
    "engine.live.exposition": frozenset({"SidecarCollector"}),
    "engine.live.insight": frozenset({"blocking_lock", "read_lock"}),
    "engine.live.metrics_server": frozenset({"ListenAddressError", "MetricsServer", "parse_listen_address"}),
    "engine.llm.summary": frozenset({"with_llm_summary"}),
    "engine.session.pi_tree": frozenset({"entry_rows", "labels", "pi_model", "session_tree", "thinking_level"}),
    "engine.agents.discovery": frozenset({"default_roots"}),
    "engine.stores.source": frozenset({"classify_file", "shared_keys"}),
    "engine.text.terminal": frozenset({"BIDI_CONTROLS"}),
    "engine.config.loader": frozenset({"config_path"}),
    "engine.fs.atomic": frozenset({"write_atomic"}),
    "engine.usage.collect": frozenset({"SPLIT_AT", "index_source"}),
}
"""Module → the names tui/ may import from it directly, beyond ``engine.__all__``."""


def _engine_imports() -> list[tuple[str, str, str]]:
    """``(tui module, engine module, name)`` for every ``from engine… import`` in tui/, at any depth."""
    found = []
    for path in sorted(TUI.rglob("*.py")):
        where = str(path.relative_to(TUI.parent))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "engine":
                found += [(where, node.module, alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                found += [(where, alias.name, "") for alias in node.names if alias.name.split(".")[0] == "engine"]
    return found


def test_tui_imports_only_public_names_and_the_named_deep_ones() -> None:
    public = set(engine.__all__)
    stray = [f"{where}: from {module} import {name}" for where, module, name in _engine_imports()
             if not (module == "engine" and name in public) and name not in DEEP_IMPORTS.get(module, ())]
    assert stray == []


def test_every_named_deep_import_is_still_used_and_not_public() -> None:
    used = {(module, name) for _, module, name in _engine_imports()}
    named = {(module, name) for module, names in DEEP_IMPORTS.items() for name in names}
    assert named - used == set()  # the list stays exact: drop what tui/ no longer imports
    assert {name for _, name in named} & set(engine.__all__) == set()  # public names come from `engine`


def test_views_import_nothing_but_the_public_api() -> None:
    views = [(where, module) for where, module, _ in _engine_imports()
             if where.split("/")[1] in ("widgets", "dialogs", "screens") and module != "engine"]
    assert views == []
