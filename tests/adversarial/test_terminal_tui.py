"""What the TUI draws from hostile sessions (issue 25, classes 1–3; docs/hostile-input.md).

Each test builds an OpenClaw store whose session key, model, provider, working directory, tool names and message
text hold one kind of attack, opens the app on it and walks every screen, tab and dialog (session list, metrics,
help, palette, usage, the session view's seven tabs, the message, risk, top-consumers and compact dialogs, the
notifications), keeping each full frame as the terminal driver would get it. A frame's segments carry the text
written to the terminal and the style a click on that cell hands to Textual's action system, so checking every
segment is checking every cell.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adversarial._hostile import (
    ACTION,
    BROKEN_MARKUP,
    ESCAPES,
    hostile_conversation,
    hostile_store,
    raw_controls,
)
from tests.adversarial._screens import Walk, walk_app

pytestmark = pytest.mark.reliability

_WALKED = {"session list", "session list, metrics", "help", "palette", "usage", "session view, checkpoint toast",
           "session view, overview", "session view, context", "message view", "session view, transcript",
           "session view, checkpoints", "session view, checkpoint rendered", "session view, decisions",
           "session view, tree", "session view, audit", "risk detail", "top consumers", "compact dialog",
           "compact dialog, summarizing", "palette on a session", "notices"}
_TOKENS = 120_000
"""60% of the window: the app writes a checkpoint when it starts, and its notification names the session."""


def _store(tmp_path: Path, value: str, key: str | None = None) -> Path:
    """One session whose key, names and text all hold ``value`` (no ``/``: a key with one is shown as its file)."""
    return hostile_store(tmp_path / "openclaw", {
        key or f"agent:main:{value}": (hostile_conversation(value, tokens=_TOKENS), f"/work/proj {value}")})


def _frame(walk: Walk, where: str) -> str:
    return next(f.text for f in walk.frames if f.where == where)


async def test_class_01_markup_and_click_actions_in_session_data_are_shown_never_run(tmp_path: Path) -> None:
    value = f"{ACTION}click me [b]bold [i]italic [link='x']l"
    # Short enough that no label cuts it inside a tag (a cut tag is class 3's MarkupError, not this class).
    key = "a:[@click=app.zz('pwned')]k"
    walk = await walk_app(_store(tmp_path, value, key), tmp_path / "state", click="click me")
    assert set(walk.where()) == _WALKED
    for frame in walk.frames:
        assert not [a for a in frame.click_actions() if "pwned" in a or "screenshot" in a], frame.where
        assert frame.links() == [], frame.where
    assert walk.clicks > 100  # the preview's title, the toast, the gauge's frame, the cards
    assert walk.clicked == [], walk.clicked
    assert not list(tmp_path.rglob("pwned*")) and not list(Path.cwd().glob("pwned*"))
    # Shown as written: the key and the project in the list's preview title, the model on the gauge's frame.
    assert f"{key} · proj [@click=app.screenshot('pwned')]click me [b]bold" in _frame(walk, "session list")
    assert "claude [@click=app.screenshot('pwned')]click me" in _frame(walk, "session view, overview")


async def test_class_02_escape_sequences_c1_and_bidi_controls_never_reach_the_terminal(tmp_path: Path) -> None:
    walk = await walk_app(_store(tmp_path, ESCAPES), tmp_path / "state")
    assert set(walk.where()) == _WALKED
    for frame in walk.frames:
        assert raw_controls("".join(s.text for s in frame.segments)) == [], frame.where
    # Shown, not obeyed: the clipboard write and the title are on screen as text.
    assert "␛]52;c;SGVsbG8=␇" in _frame(walk, "session list")
    assert "␛]0;pwned-title␇" in _frame(walk, "session view, overview")
    assert "\\u202e" in _frame(walk, "session view, transcript")
    assert "]52;c;SGVsbG8=" in _frame(walk, "compact dialog, summarizing")  # the editable summary, ESC left out


async def test_class_03_names_that_look_like_markup_neither_crash_nor_lose_text(tmp_path: Path) -> None:
    model, project, wip = BROKEN_MARKUP
    store = hostile_store(tmp_path / "openclaw", {
        f"agent:main:{wip}": (hostile_conversation(f"see {model} in {project}", model=model, tool=f"{wip} tool",
                                                   tokens=_TOKENS), f"/work/{project}"),
        "agent:main:other": (hostile_conversation("plain", tag="o-"), f"/work/{wip}"),
    })
    walk = await walk_app(store, tmp_path / "state")  # MarkupError here would end the app (exit status 0)
    assert set(walk.where()) == _WALKED
    listed = _frame(walk, "session list")
    assert f"agent:main:{wip}" in listed and model in listed and wip in listed and project in listed
    overview = _frame(walk, "session view, overview")
    assert model in overview and f"agent:main:{wip}" in overview
    assert f"{wip} tool" in _frame(walk, "session view, context")
