"""Issue 28, item 4: one function computes each figure, and every view, command, JSON and the README shows it.

The protected budget of each layer (with its source and the window cap), the compaction count (right after our own
compaction too), the degradation loss, and the rounding of money and shares.
"""

from __future__ import annotations

import re
from pathlib import Path

import orjson
import pytest
from textual.widgets import Static

from engine.accounting.rounding import money
from engine.compaction.budget import layer_budgets
from engine.config.compaction_settings import LAYERS
from engine.config.loader import Config
from tests.conftest import MAIN_SESSION, SESSIONS_JSON, SUBAGENT
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.test_actions import SUBAGENT_KEY, _dialog
from tests.tui.test_views import _open
from tui.cli import main as cli
from tui.widgets.cards import RiskCard

README = Path(__file__).resolve().parents[2] / "README.md"
MAIN_KEY = "agent:main:main"


def _out(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    code = cli.main(argv)
    out, err = capsys.readouterr()
    assert code == cli.EXIT_OK, err
    return out


async def test_inspect_the_dry_runs_the_dialog_and_the_readme_give_each_layer_one_budget(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name
    state = ["--state-dir", str(tmp_path / "state")]
    inspect = orjson.loads(_out(capsys, [*state, "inspect", str(copy), "--json"]))
    window = inspect["context_window"]
    budgets = {b.layer: b for b in layer_budgets(int(window), Config().compaction)}
    assert {k: v["tokens"] for k, v in inspect["layer_budgets"].items()} == {k: b.tokens for k, b in budgets.items()}
    text = _out(capsys, [*state, "inspect", str(copy)])
    for layer in LAYERS:
        said = budgets[layer].describe()
        assert f"{layer} {said}" in text
        cli.main([*state, "compact", str(copy), "--layer", layer, "--dry-run"])
        assert f"protecting the last {said} tokens" in capsys.readouterr().out
    # The README's table names each layer's setting and the cap that applies on a small window.
    readme = README.read_text()
    for layer in ("prune", "summarize", "full"):
        row = next(line for line in readme.splitlines() if line.startswith(f"| `{layer}` |"))
        assert f"{budgets[layer].configured // 1000}k" in row
    assert "capped at half the context window" in " ".join(readme.split())
    app, _ = make_app([copy.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        figures = str(dialog.query_one("#plan-figures", Static).render())
        assert f"protect {budgets[dialog.chosen_layer].describe()}" in " ".join(figures.split())


def test_status_history_and_the_dry_run_count_our_own_compaction_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    copy = sessions / MAIN_SESSION.name
    state = ["--state-dir", str(tmp_path / "state")]

    def counts() -> tuple[int, int, int]:
        status = orjson.loads(_out(capsys, [*state, "status", str(sessions), "--json"]))
        history = orjson.loads(_out(capsys, [*state, "history", str(copy), "--json"]))
        inspect = orjson.loads(_out(capsys, [*state, "inspect", str(copy), "--json"]))
        return status[0]["compactions"], history["compaction_count"], inspect["compactions"]

    before = counts()
    assert before[0] == before[1] == before[2]
    cli.main([*state, "compact", str(copy), "--keep-recent", "2000", "--dry-run"])
    assert f"this will be compaction #{before[0] + 1}" in capsys.readouterr().out
    assert cli.main([*state, "compact", str(copy), "--keep-recent", "2000", "--yes"]) == cli.EXIT_OK
    capsys.readouterr()
    assert counts() == (before[0] + 1,) * 3
    history = _out(capsys, [*state, "history", str(copy)])
    assert f"{before[0] + 1} compaction(s)" in history


async def test_the_risk_line_and_the_lost_row_show_one_loss(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state")
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await _open(pilot, MAIN_KEY)
        await wait_until(pilot, lambda: "lost" in str(app.screen.query_one(RiskCard).render()))
        text = str(app.screen.query_one(RiskCard).render())
        head = re.search(r"~?([\d.]+)% lost", text)
        row = re.search(r"lost\s+~?([\d.]+)%", text)
        assert head and row and head.group(1) == row.group(1), text


def test_money_is_rounded_one_way() -> None:
    # The list said "$11" where the header and the report said "$10.62".
    assert money(10.62) == "$10.62" and money(1234.5) == "$1,234.50" and money(0.0081) == "$0.0081"


def test_two_copies_of_one_session_are_named_by_their_paths(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    first = copy_fixtures([SUBAGENT], tmp_path / "a") / SUBAGENT.name
    second = copy_fixtures([SUBAGENT], tmp_path / "b") / SUBAGENT.name
    assert cli.main(["inspect", SUBAGENT_KEY[:6], "--in", str(tmp_path / "a"), "--in", str(tmp_path / "b")]) == 3
    err = capsys.readouterr().err
    assert str(first) in err and str(second) in err  # either can then be named by its path
    assert cli.main(["--state-dir", str(tmp_path / "state"), "inspect", str(second)]) == cli.EXIT_OK


def test_the_guard_says_the_same_loss_as_the_risk_card(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # "risk HIGH … ~30% lost" in the dialog's guard above "lost 0% of earlier checkpoints' decisions" on the card.
    from engine.accounting.rounding import percent
    from engine.agents.discovery import discover_sessions
    from engine.compaction.planner import plan_compaction
    from engine.session.snapshot import SessionFollower

    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    source = next(s for s in discover_sessions([sessions]).sessions if s.key == MAIN_KEY)
    follower = SessionFollower(source, Config(state_dir=tmp_path / "state"))
    plan = plan_compaction(follower.refresh(), "summarize", None, keep_recent=2000,
                           config=Config(state_dir=tmp_path / "state"), load=follower.reader.read_object)
    assert plan.guard is not None and plan.degradation is not None
    share, basis = plan.degradation.loss
    assert f"{percent(share)} {basis}" in plan.guard.reason
