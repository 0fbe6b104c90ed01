"""Control keys end to end: ``c``, ``k`` and ``p`` change the copied session (or refuse, and say why)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest
from textual.message import Message
from textual.notifications import Notify
from textual.pilot import Pilot
from textual.widgets import Button, Checkbox, Input, RadioSet, Static, TextArea
from textual.widgets._toast import Toast

from engine.checkpoints.store import latest_checkpoint
from engine.fs.audit import read_audit
from engine.fs.session_lock import process_starttime
from tests.conftest import MAIN_SESSION, RESET_ARCHIVE, SESSIONS_JSON, SUBAGENT
from tests.engine.test_llm import KEY, FakeLLM, Reply, _chat, _openai, fake_llm  # noqa: F401 - the fixture
from tests.engine.test_sqlite_store import build_db
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.transcript_lines import append, decision_exchange
from tui.app import CtxscopeApp
from tui.dialogs.compact import CompactDialog
from tui.messages import CheckpointWritten, CompactionApplied, CompactionFailed, ControlFinished
from tui.screens.session_view import SessionScreen
from tui.widgets.cards import ContextCard
from tui.widgets.gauge import GaugeBar
from tui.widgets.notice_line import NoticeLine
from tui.widgets.session_table import SessionTable

SUBAGENT_KEY = "3003a4e2-a8c1-417d-9ebc-76480d47d0c0"
SUBAGENT_LEAF = "562b10c7"
MAIN_KEY = "agent:main:main"


def _notes(seen: list[Message]) -> list[tuple[str, str]]:
    return [(m.notification.title, m.notification.message) for m in seen if isinstance(m, Notify)]


def _said(seen: list[Message], fragment: str) -> bool:
    return any(fragment in message for _, message in _notes(seen))


async def _dialog(pilot: Pilot[None], key: str, key_press: str) -> CompactDialog:
    """Select ``key`` in the list, press ``k`` or ``p`` and wait for the first plan."""
    app = pilot.app
    assert isinstance(app, CtxscopeApp)
    table = app.session_list.query_one(SessionTable)
    table.move_cursor(row=table.get_row_index(key))
    await pilot.press(key_press)
    await wait_until(pilot, lambda: isinstance(app.screen, CompactDialog))
    dialog = app.screen
    assert isinstance(dialog, CompactDialog)
    await wait_until(pilot, lambda: dialog.plan is not None and dialog.plan.session_key == key)
    return dialog


async def _keep_recent(pilot: Pilot[None], dialog: CompactDialog, tokens: int) -> None:
    dialog.query_one("#keep-recent", Input).focus()
    await pilot.press(*str(tokens))
    await wait_until(pilot, lambda: dialog.plan is not None and dialog.plan.keep_recent_tokens == tokens
                     and dialog.request() == dialog._pending)


def _text(dialog: CompactDialog, selector: str) -> str:
    return str(dialog.query_one(selector, Static).render())


def _appended(path: Path, original: bytes) -> list[dict[str, object]]:
    data = path.read_bytes()
    assert data.startswith(original)  # append-only: the old bytes are untouched
    return [orjson.loads(line) for line in data[len(original):].splitlines()]


@pytest.fixture
def subagent(tmp_path: Path) -> Path:
    return copy_fixtures([SUBAGENT], tmp_path / "sessions") / SUBAGENT.name


async def test_c_writes_a_checkpoint_through_the_apps_sidecar(subagent: Path, tmp_path: Path) -> None:
    seen: list[Message] = []
    app, _ = make_app([subagent.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert not list((tmp_path / "state").rglob("cp_*.yaml"))  # 4%: no trigger fired at start
        await pilot.press("c")
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, ControlFinished)])
        written = list((tmp_path / "state").rglob("cp_001.yaml"))
        assert len(written) == 1 and "trigger: \"manual\"" in written[0].read_text()
        assert app.manager.sessions[SUBAGENT_KEY].triggers.last_checkpoint_tokens is not None
        await wait_until(pilot, lambda: _said(seen, "cp_001 (manual)"))


async def test_shift_c_writes_a_checkpoint_with_the_llms_decisions_once_one_is_configured(
    subagent: Path, tmp_path: Path, fake_llm: FakeLLM, monkeypatch: pytest.MonkeyPatch  # noqa: F811 - the fixture
) -> None:
    monkeypatch.setenv("CTXSCOPE_TEST_LLM_KEY", KEY)
    seen: list[Message] = []
    app, _ = make_app([subagent.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        await pilot.press("C")
        await wait_until(pilot, lambda: _said(seen, "needs an `llm:` section"))
        assert not list((tmp_path / "state").rglob("cp_*.yaml")) and not fake_llm.requests
        app.config = replace(app.config, llm=_openai(fake_llm))
        fake_llm.replies.append(Reply(body=_chat('["Keep the subagent on kimi-code for the review"]')))
        await pilot.press("C")
        await wait_until(pilot, lambda: _said(seen, "decisions enriched by"))
        written = list((tmp_path / "state").rglob("cp_001.yaml"))
        assert len(written) == 1 and "Keep the subagent on kimi-code for the review" in written[0].read_text()
        assert KEY not in written[0].read_text()


async def test_k_previews_the_plan_and_confirming_appends_a_compaction(subagent: Path, tmp_path: Path) -> None:
    original = subagent.read_bytes()
    seen: list[Message] = []
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        assert dialog.chosen_layer == "summarize"  # 4% is below every trigger: the default layer
        assert dialog.query_one(RadioSet).pressed_button is not None
        assert dialog.plan is not None and dialog.plan.blocked  # the whole context fits the layer's budget
        assert dialog.query_one("#apply", Button).has_class("-not-ready")
        assert "✗ nothing to compact" in _text(dialog, "#plan-blocked")
        assert "blocked" in _text(dialog, "#plan-status")

        await _keep_recent(pilot, dialog, 500)
        plan = dialog.plan
        assert plan is not None and plan.applicable and not plan.needs_confirmation
        assert plan.context_tokens_after < plan.context_tokens_before
        figures = _text(dialog, "#plan-figures")
        assert f"{plan.context_tokens_before:,} → {plan.context_tokens_after:,}" in figures
        assert f"{plan.messages_summarized:,} out" in figures and f"{plan.messages_kept:,} kept" in figures
        assert plan.dropped[0].entry_id in _text(dialog, "#plan-dropped")
        assert dialog.query_one("#summary-text", TextArea).text == plan.summary
        assert not dialog.query_one("#apply", Button).has_class("-not-ready")

        await pilot.click("#apply")
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionApplied)])
        entries = _appended(subagent, original)
        assert entries[0]["type"] == "compaction" and entries[0]["parentId"] == SUBAGENT_LEAF
        assert entries[0]["firstKeptEntryId"] == plan.first_kept_entry_id
        assert entries[0]["summary"] == plan.summary
        assert entries[-1]["type"] in ("compaction", "custom_message")  # the new leaf
        await wait_until(pilot, lambda: app.snapshots[SUBAGENT_KEY].compactions == 1)
        await wait_until(pilot, lambda: any(isinstance(m, CheckpointWritten) for m in seen))
        titles = [title for title, _ in _notes(seen)]
        assert "Compacted" in titles and "Compaction detected" not in titles  # ours is reported once
        written = [m.event for m in seen if isinstance(m, CheckpointWritten)]
        assert [e.trigger for e in written] == ["compaction"]  # the sidecar saved state after it
        audit = [r for r in read_audit(tmp_path / "state") if r.action == "compact"]
        assert [(r.result, r.params["layer"]) for r in audit] == [("ok", "summarize")]


async def test_the_summary_can_be_edited_before_applying_and_the_edit_is_audited(subagent: Path,
                                                                               tmp_path: Path) -> None:
    original = subagent.read_bytes()
    seen: list[Message] = []
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        await _keep_recent(pilot, dialog, 500)
        base = dialog.plan
        assert base is not None and base.applicable and not base.summary_edited
        area = dialog.query_one("#summary-text", TextArea)
        area.focus()
        area.move_cursor(area.document.end)
        await pilot.press("enter", *"- keep the retry helper")
        await wait_until(pilot, lambda: dialog.plan is not None and dialog.plan.summary_edited
                         and dialog.plan.summary.endswith("- keep the retry helper"))
        edited = dialog.plan
        assert edited is not None and edited.summary_tokens > base.summary_tokens
        figures = _text(dialog, "#plan-figures")
        assert f"{edited.context_tokens_after:,}" in figures
        assert "edited" in str(dialog.query_one("#plan-summary").border_title)
        assert "summary edited" in _text(dialog, "#plan-status")
        await wait_until(pilot, lambda: not dialog.query_one("#apply", Button).has_class("-not-ready"))
        await pilot.click("#apply")
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionApplied)])
        entries = _appended(subagent, original)
        assert entries[0]["type"] == "compaction" and entries[0]["summary"] == edited.summary
        audit = [r for r in read_audit(tmp_path / "state") if r.action == "compact"]
        assert [(r.result, r.plan["summary_edited"], r.plan["summary_sha256"]) for r in audit] == [
            ("ok", True, hashlib.sha256(edited.summary.encode()).hexdigest())]


async def test_the_dialog_plans_again_when_the_agent_writes_and_says_the_plan_changed(subagent: Path,
                                                                                    tmp_path: Path) -> None:
    seen: list[Message] = []
    app, changes = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        await _keep_recent(pilot, dialog, 500)
        shown = dialog.plan
        assert shown is not None and shown.applicable and not dialog.plan_changed
        entries, leaf = decision_exchange(SUBAGENT_LEAF, 40_000)
        append(subagent, *entries)
        changes.push(subagent)
        await wait_until(pilot, lambda: dialog.plan is not None and dialog.plan.leaf_id == leaf)
        await wait_until(pilot, lambda: "plan changed — review" in _text(dialog, "#plan-status"))
        moved = dialog.plan
        assert moved is not None and moved.context_tokens_before != shown.context_tokens_before
        assert f"{moved.context_tokens_before:,} → {moved.context_tokens_after:,}" in _text(dialog, "#plan-figures")
        await wait_until(pilot, lambda: not dialog.query_one("#apply", Button).has_class("-not-ready"))
        await pilot.click("#apply")
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionApplied)])
        applied = next(m for m in seen if isinstance(m, CompactionApplied)).result
        assert applied.plan is moved and not applied.replanned  # exactly the plan on screen


async def test_a_plan_the_agent_overtook_is_kept_exactly_with_its_new_entries_after_the_cut(subagent: Path,
                                                                                         tmp_path: Path) -> None:
    seen: list[Message] = []
    app, _ = make_app([subagent.parent], tmp_path / "state")  # no change is pushed: the dialog cannot see it
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        await _keep_recent(pilot, dialog, 500)
        shown = dialog.plan
        entries, leaf = decision_exchange(SUBAGENT_LEAF, 40_000)
        append(subagent, *entries)
        await pilot.click("#apply")
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionApplied | CompactionFailed)])
        applied = next(m for m in seen if isinstance(m, CompactionApplied)).result
        assert applied.plan is shown and applied.parent_id == leaf  # the cut and summary shown, chained after
        assert _said(seen, "kept verbatim")  # the close says the context is larger than planned


async def test_p_prunes_with_the_layer_fixed(subagent: Path, tmp_path: Path) -> None:
    original = subagent.read_bytes()
    seen: list[Message] = []
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "p")
        assert not dialog.query(RadioSet) and "prune" in _text(dialog, "#layer-fixed")
        await _keep_recent(pilot, dialog, 500)
        plan = dialog.plan
        assert plan is not None and plan.layer == "prune" and plan.applicable
        await pilot.click("#apply")
        await wait_until(pilot, lambda: [m for m in seen if isinstance(m, CompactionApplied)])
        entries = _appended(subagent, original)
        assert entries[0]["type"] == "compaction" and entries[0]["summary"] == plan.summary
        assert "Pruned" in [title for title, _ in _notes(seen)]
        audit = [(r.action, r.result) for r in read_audit(tmp_path / "state") if r.action != "checkpoint"]
        assert audit == [("prune", "ok")]


async def test_high_degradation_needs_the_confirmation_ticked(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    original = (sessions / MAIN_SESSION.name).read_bytes()
    app, _ = make_app([sessions], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, MAIN_KEY, "k")
        await _keep_recent(pilot, dialog, 2000)
        plan = dialog.plan
        assert plan is not None and plan.applicable and plan.needs_confirmation
        confirm = dialog.query_one("#confirm-risk", Checkbox)
        assert confirm.display and "Degradation risk is high" in str(confirm.label)
        assert dialog.query_one("#apply", Button).has_class("-not-ready") and not dialog.confirmable
        assert "tick the confirmation" in _text(dialog, "#plan-status")
        await pilot.click("#confirm-risk")
        await wait_until(pilot, lambda: confirm.value)
        assert not dialog.query_one("#apply", Button).has_class("-not-ready") and dialog.confirmable
        assert "ready · summarize via jsonl" in _text(dialog, "#plan-status")
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, CompactDialog))
        assert (sessions / MAIN_SESSION.name).read_bytes() == original  # cancelled: nothing written


def _footer_disabled(app: CtxscopeApp) -> set[str]:
    # FooterKey is not exported by textual.widgets: select it by its type name.
    return {getattr(key, "action", "") for key in app.screen.query("FooterKey") if key.has_class("-disabled")}


async def test_compacting_an_archived_transcript_is_refused_with_the_reason(tmp_path: Path) -> None:
    archive = copy_fixtures([RESET_ARCHIVE], tmp_path / "sessions") / RESET_ARCHIVE.name
    seen: list[Message] = []
    app, _ = make_app([archive], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert app.check_action("compact", ()) is None and app.check_action("prune", ()) is None
        await pilot.press("k")
        await wait_until(pilot, lambda: _said(seen, "is an archived transcript"))
        assert not isinstance(app.screen, CompactDialog)
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert "archived transcript" in helps["Compact"]


async def test_pruning_a_sqlite_session_is_refused_but_k_asks_the_gateway(tmp_path: Path) -> None:
    agent_dir = tmp_path / "openclaw" / "agents" / "main" / "agent"
    agent_dir.mkdir(parents=True)
    db = agent_dir / "openclaw-agent.sqlite"
    build_db(db)
    before = db.read_bytes()
    seen: list[Message] = []
    app, _ = make_app([db], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert app.check_action("prune", ()) is None and app.check_action("compact", ()) is True
        await pilot.press("p")
        await wait_until(pilot, lambda: _said(seen, "the gateway cannot prune"))
        assert _said(seen, "SQLite store, which only the gateway writes")
        dialog = await _dialog(pilot, MAIN_KEY, "k")
        assert dialog.plan is not None and dialog.plan.controller == "gateway"
        assert "OpenClaw chooses the cut and writes the summary itself" in _text(dialog, "#plan-notes")
        await pilot.press("escape")
    assert db.read_bytes() == before


@pytest.fixture
def live_process() -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        yield process
    finally:
        process.kill()
        process.wait()


async def test_a_live_lock_disables_compaction_and_says_who_holds_it(
    subagent: Path, tmp_path: Path, live_process: subprocess.Popen[bytes]
) -> None:
    seen: list[Message] = []
    app, changes = make_app([subagent.parent], tmp_path / "state")
    async with app.run_test(size=(120, 36), message_hook=seen.append) as pilot:
        await settle(pilot)
        assert app.check_action("compact", ()) is True
        lock = subagent.with_name(subagent.name + ".lock")
        payload = {"pid": live_process.pid, "createdAt": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
                   "starttime": process_starttime(live_process.pid)}
        lock.write_bytes(orjson.dumps(payload, option=orjson.OPT_INDENT_2))
        await pilot.press("k")  # checked at the key press, before the watcher reported the lock
        await wait_until(pilot, lambda: _said(seen, f"pid {live_process.pid} holds {lock.name}"))
        assert not isinstance(app.screen, CompactDialog)
        changes.push(lock)
        await wait_until(pilot, lambda: app.check_action("prune", ()) is None)
        assert f"pid {live_process.pid}" in (app.unavailable("prune") or "")
        await wait_until(pilot, lambda: _footer_disabled(app) >= {"compact", "prune"})  # the keys show it too
        live_process.kill()
        live_process.wait()  # the holder exits and leaves its lock behind: nothing on disk changes
        await pilot.press("p")
        await wait_until(pilot, lambda: isinstance(app.screen, CompactDialog))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.check_action("prune", ()) is True)  # re-judged: stale now
    assert lock.exists()  # previewing never breaks or removes a lock


async def test_notifications_never_cover_the_dialogs_buttons(subagent: Path, tmp_path: Path) -> None:
    app, _ = make_app([subagent.parent], tmp_path / "state")
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await settle(pilot)
        dialog = await _dialog(pilot, SUBAGENT_KEY, "k")
        for n in range(3):
            app.tell(f"something happened {n}", title=f"Note {n}", timeout=30)
        line = dialog.query_one(NoticeLine)
        await wait_until(pilot, lambda: "something happened 2" in str(line.render()))
        await pilot.pause()
        assert not dialog.query(Toast)
        for pane in ("#compact-buttons", "#plan-preview", "#plan-summary"):
            region = dialog.query_one(pane).region
            assert not line.region.overlaps(region), (line.region, region)


async def test_one_context_size_in_the_gauge_the_overview_the_dialog_and_the_checkpoint(tmp_path: Path) -> None:
    sessions = copy_fixtures([MAIN_SESSION, SESSIONS_JSON], tmp_path / "sessions")
    app, _ = make_app([sessions], tmp_path / "state", auto_checkpoints=False)
    app.compaction.debounce = 0
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        size = app.snapshots[MAIN_KEY].tokens.tokens
        assert size is not None
        figure = f"{size:,}"
        table = app.session_list.query_one(SessionTable)
        table.move_cursor(row=table.get_row_index(MAIN_KEY))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
        await settle(pilot)
        screen = app.screen
        assert f"{figure} / " in str(screen.query_one(GaugeBar).render())
        assert f"tokens      {figure} (" in str(screen.query_one(ContextCard).render())
        await pilot.press("c")
        await wait_until(pilot, lambda: latest_checkpoint(tmp_path / "state", MAIN_KEY) is not None)
        stored = latest_checkpoint(tmp_path / "state", MAIN_KEY)
        assert stored is not None and stored.checkpoint.meta.token_usage.input_tokens == size
        await pilot.press("k")
        await wait_until(pilot, lambda: isinstance(app.screen, CompactDialog) and app.screen.plan is not None)
        dialog = app.screen
        assert isinstance(dialog, CompactDialog) and dialog.plan is not None
        assert dialog.plan.context_tokens_before == size
        assert _text(dialog, "#plan-figures").split("→")[0].strip().endswith(figure)
