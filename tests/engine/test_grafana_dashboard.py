"""docs/grafana-ctxscope.json queries only the metrics ``watch --metrics`` exports (the integration test runs them)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine.live.exposition import EXPORTED_NAMES

DASHBOARD = Path(__file__).resolve().parents[2] / "docs" / "grafana-ctxscope.json"


def dashboard_queries() -> list[str]:
    """Every PromQL expression of the dashboard's panels and template variables."""
    board = json.loads(DASHBOARD.read_text())
    queries = [target["expr"] for panel in board["panels"] for target in panel["targets"]]
    return queries + [variable["query"]["query"] for variable in board["templating"]["list"]]


def test_every_metric_the_dashboard_reads_is_exported() -> None:
    queries = dashboard_queries()
    assert len(queries) >= 20
    used: set[str] = set()
    for query in queries:
        # Selectors are written with braces, so a name followed by "{" is a metric and nothing else is.
        used |= set(re.findall(r"([A-Za-z_:][A-Za-z0-9_:]*)\{", query))
        bare = re.findall(r"\bctxscope_[a-z_]+\b(?!\{)", query)
        assert not bare, f"{query}: write selectors with braces ({bare})"
    assert used <= set(EXPORTED_NAMES), used - set(EXPORTED_NAMES)
    assert used == set(EXPORTED_NAMES), f"not on the dashboard: {set(EXPORTED_NAMES) - used}"


def test_the_dashboard_is_importable_json_with_a_datasource_input() -> None:
    board = json.loads(DASHBOARD.read_text())
    assert board["__inputs"][0]["pluginId"] == "prometheus"
    assert {panel["id"] for panel in board["panels"]} == set(range(1, len(board["panels"]) + 1))
    for panel in board["panels"]:
        assert panel["datasource"]["uid"] == "${DS_PROMETHEUS}"
        grid = panel["gridPos"]
        assert grid["x"] + grid["w"] <= 24
