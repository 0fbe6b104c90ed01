"""Walks every screen, tab and dialog of the TUI on a given store and collects what reaches the terminal: the
segments of each full frame (their text, and the style a click there would hand to Textual's action system)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from rich.segment import Segment
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import DataTable, Footer, Input

from tests.tui.app_factory import make_app, settle, wait_until
from tui.app import CtxscopeApp
from tui.dialogs.compact import CompactDialog
from tui.dialogs.message_view import MessageView
from tui.dialogs.prune_chosen import ChooseConsumersDialog
from tui.dialogs.risk_detail import RiskDetail
from tui.screens.help import HelpScreen
from tui.screens.notices import NoticesScreen
from tui.screens.session_view import TABS, SessionScreen
from tui.screens.usage import UsageScreen
from tui.widgets.footer import KeyFooter
from tui.widgets.notice_line import NoticeLine
from tui.widgets.tab_bar import TabBar


@dataclass
class Frame:
    """One full frame of one state of the app."""

    where: str
    segments: list[Segment]
    lines: list[str]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)

    def click_actions(self) -> list[str]:
        """Every action a click anywhere on this frame would run through Textual's ``@click`` meta."""
        found = []
        for segment in self.segments:
            meta = segment.style.meta if segment.style is not None else {}
            if "@click" in meta:
                found.append(str(meta["@click"]))
        return found

    def links(self) -> list[str]:
        return [s.style.link for s in self.segments if s.style is not None and s.style.link]


@dataclass
class Walk:
    frames: list[Frame] = field(default_factory=list)
    clicked: list[str] = field(default_factory=list)
    """Actions Textual's action system was asked to run by a click (recorded, not run)."""
    clicks: int = 0
    """Cells clicked."""

    def where(self) -> list[str]:
        return [f.where for f in self.frames]


async def _notices_drawn(pilot: Pilot[None]) -> None:
    # Notices are drawn on the screen's notice line (tui/widgets/notice_line.py), not as floating toasts.
    app = pilot.app
    current = getattr(app, "current_notices", None)
    if current is not None and current():
        await wait_until(pilot, lambda: any(line.display and line.region.width
                                            for line in app.screen.query(NoticeLine)))
        await pilot.pause()


_NAVIGATION = (DataTable, Footer, KeyFooter, TabBar)
"""Widgets a click on moves somewhere (opens a row, runs a key, switches a tab): their cells are read, not clicked."""


async def click_lines(pilot: Pilot[None], needle: str) -> int:
    """Click every cell of every line of the frame that shows ``needle``, outside the navigation widgets."""
    app = pilot.app
    clicks = 0
    for y, line in enumerate(frame(app, "").lines):  # type: ignore[arg-type]
        if needle not in line:
            continue
        for x in range(len(line)):
            widget, _ = app.screen.get_widget_at(x, y)
            if isinstance(widget, _NAVIGATION):
                continue
            await pilot.click(offset=(x, y))
            clicks += 1
    return clicks


def frame(app: CtxscopeApp, where: str) -> Frame:
    strips = app.screen._compositor.render_strips()  # the whole screen, as the driver would write it
    segments = [segment for strip in strips for segment in strip]
    return Frame(where, segments, ["".join(s.text for s in strip) for strip in strips])


async def _modal(pilot: Pilot[None], walk: Walk, key: str, kind: type, where: str,
                 ready: Callable[[], object] = lambda: True) -> None:
    app = pilot.app
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, kind))
    await wait_until(pilot, ready)
    await pilot.pause()
    walk.frames.append(frame(app, where))  # type: ignore[arg-type]
    await pilot.press("escape")
    await wait_until(pilot, lambda: not isinstance(app.screen, kind))


async def walk_app(store: Path, state: Path, *, size: tuple[int, int] = (160, 50), click: str | None = None,
                   also: Callable[[Pilot[None], Walk], Awaitable[None]] | None = None) -> Walk:
    """Open the app on ``store`` and visit every screen, tab and dialog, keeping a frame of each (``click``: also
    click every cell of the lines showing this text on the session list and the session view)."""
    app, _ = make_app([store], state)
    walk = Walk()

    async def broker(event_name: str, event: object, default_namespace: object) -> bool:
        style = getattr(event, "style", None)
        meta = style.meta if style is not None else {}
        if f"@{event_name}" in meta:
            walk.clicked.append(str(meta[f"@{event_name}"]))
            getattr(event, "stop", lambda: None)()
            return True
        return False

    app._broker_event = broker  # type: ignore[method-assign]  # record what a click would run; run nothing
    async with app.run_test(size=size, notifications=True, tooltips=True) as pilot:
        await settle(pilot)
        await _notices_drawn(pilot)
        walk.frames.append(frame(app, "session list"))
        if click is not None:
            walk.clicks += await click_lines(pilot, click)
        await pilot.press("m")
        await pilot.pause()
        walk.frames.append(frame(app, "session list, metrics"))
        await pilot.press("m")
        await _modal(pilot, walk, "question_mark", HelpScreen, "help")
        await _modal(pilot, walk, "ctrl+p", CommandPalette, "palette",
                     lambda: bool(app.screen.query("CommandList")))
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen))
        await settle(pilot)
        walk.frames.append(frame(app, "usage"))
        await pilot.press("escape")
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
        screen = app.screen
        await settle(pilot)
        await pilot.press("c")  # a checkpoint: its toast, then its rows in the Checkpoints tab and the audit log
        await settle(pilot)
        await _notices_drawn(pilot)
        walk.frames.append(frame(app, "session view, checkpoint toast"))
        if click is not None:
            walk.clicks += await click_lines(pilot, click)
            assert app.screen is screen
        await _modal(pilot, walk, "n", NoticesScreen, "notices")  # every notice of the run, session names in them
        await pilot.press("z")  # dismissed: the title row (the session's key) is shown again
        await pilot.pause()
        for n, tab in enumerate(TABS, start=1):
            await pilot.press(str(n))
            await settle(pilot)
            walk.frames.append(frame(app, f"session view, {tab}"))
            if tab == "context":
                await _modal(pilot, walk, "enter", MessageView, "message view")
            if tab == "checkpoints":
                await pilot.press("enter")
                await settle(pilot)
                walk.frames.append(frame(app, "session view, checkpoint rendered"))
            assert app.screen is screen
        await pilot.press("1")
        await settle(pilot)
        await _modal(pilot, walk, "r", RiskDetail, "risk detail")
        await _modal(pilot, walk, "t", ChooseConsumersDialog, "top consumers")
        await _modal(pilot, walk, "k", CompactDialog, "compact dialog",
                     lambda: bool(str(app.screen.query_one("#plan-figures").render())))
        await pilot.press("k")  # again, with a budget that summarizes the session: its text in the editable summary
        await wait_until(pilot, lambda: isinstance(app.screen, CompactDialog) and app.screen.plan is not None)
        dialog = app.screen
        assert isinstance(dialog, CompactDialog)
        dialog.query_one("#keep-recent", Input).value = "1"
        await wait_until(pilot, lambda: dialog.plan is not None and dialog.plan.messages_summarized > 0)
        await pilot.pause()
        walk.frames.append(frame(app, "compact dialog, summarizing"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        await _modal(pilot, walk, "ctrl+p", CommandPalette, "palette on a session",
                     lambda: bool(app.screen.query("CommandList")))
        if also is not None:
            await also(pilot, walk)
    return walk
