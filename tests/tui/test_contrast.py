"""Issue 28, item 11: contrast in a 256-colour terminal.

The colours are the ones the app draws (its theme and stylesheet, alpha already blended by Textual), quantised to
the xterm 256 palette the way the terminal output is (Rich's 8-bit downgrade), and compared with the WCAG 2
contrast ratio: at least 4.5:1 for text, 3:1 for the plot's compaction line (a graphical object).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.color import Color, ColorSystem
from rich.segment import Segment
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget

from engine.accounting.timeline import Timeline, TimelineSample
from tests.conftest import LISTED_FIXTURES
from tests.tui.app_factory import copy_fixtures, make_app, settle, wait_until
from tests.tui.test_keys import _open
from tui.screens.session_view import SessionScreen
from tui.screens.usage import UsageScreen
from tui.widgets.plot import UtilizationPlot

SIZES = [(80, 24), (120, 36)]
THEMES = ["textual-dark", "textual-light"]
"""The default theme, and the light one a user on a light terminal picks from the palette."""
MAIN_KEY = "agent:main:main"


def _luminance(color: Color) -> float:
    """WCAG 2 relative luminance of ``color`` as the xterm 256 palette shows it."""
    quantised = color.downgrade(ColorSystem.EIGHT_BIT).get_truecolor()

    def linear(channel: int) -> float:
        value = channel / 255
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(quantised.red) + 0.7152 * linear(quantised.green) + 0.0722 * linear(quantised.blue)


def contrast(segment: Segment) -> float:
    """The WCAG contrast ratio of a drawn segment's foreground against its background, both quantised."""
    style = segment.style
    assert style is not None and style.color is not None and style.bgcolor is not None, segment
    light, dark = sorted((_luminance(style.color), _luminance(style.bgcolor)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_formula_matches_wcag_reference_values() -> None:
    black, white = Color.parse("#000000"), Color.parse("#ffffff")
    assert contrast(Segment("x", _style(white, black))) == pytest.approx(21.0)
    assert contrast(Segment("x", _style(black, black))) == pytest.approx(1.0)
    # #767676 on white is the classic 4.54:1 (it is xterm 243, exactly).
    assert contrast(Segment("x", _style(Color.parse("#767676"), white))) == pytest.approx(4.54, abs=0.01)


def _style(color: Color, bgcolor: Color) -> object:
    from rich.style import Style

    return Style(color=color, bgcolor=bgcolor)


def _segments(widget: Widget) -> list[Segment]:
    region = Region(0, 0, widget.outer_size.width, widget.outer_size.height)
    return [segment for strip in widget.render_lines(region) for segment in strip]


def _hint_segments(widget: Widget) -> list[Segment]:
    """The drawn segments of ``widget``'s border subtitle (the key hints: "r: whole", "t: choose and prune")."""
    hint = str(widget.border_subtitle)
    bottom = widget.render_lines(Region(0, widget.outer_size.height - 1, widget.outer_size.width, 1))[0]
    found = [s for s in bottom if s.text.strip() and s.text.strip() in hint]
    assert "".join(s.text for s in found).strip() == hint.strip(), (hint, list(bottom))
    return found


def _hinted(screen: object) -> list[Widget]:
    return [w for w in screen.query("*") if w.display and w.border_subtitle and w.outer_size.height > 1
            and w.styles.border_bottom[0] not in ("", "none", "hidden")]  # type: ignore[attr-defined]


@pytest.fixture
def sessions(tmp_path: Path) -> Path:
    return copy_fixtures(LISTED_FIXTURES, tmp_path / "sessions")


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
async def test_border_hints_are_readable_in_256_colours(sessions: Path, tmp_path: Path, size: tuple[int, int],
                                                        theme: str) -> None:
    app, _ = make_app([sessions], tmp_path / "state", theme=theme)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen = await _open(pilot, MAIN_KEY)
        await wait_until(pilot, lambda: len(_hinted(screen)) >= 2)  # the model on the gauge, the risk card
        checked = {str(w.border_subtitle): min(contrast(s) for s in _hint_segments(w)) for w in _hinted(screen)}
        assert "r: whole" in checked  # the top consumers card (its "t: choose and prune") is not shown at 80×24
        assert all(ratio >= 4.5 for ratio in checked.values()), checked
        await pilot.press("escape")
        await pilot.press("u")
        await wait_until(pilot, lambda: isinstance(app.screen, UsageScreen) and len(_hinted(app.screen)) >= 3)
        usage = {str(w.border_subtitle): min(contrast(s) for s in _hint_segments(w)) for w in _hinted(app.screen)}
        assert any(hint.startswith("bars:") for hint in usage)
        assert all(ratio >= 4.5 for ratio in usage.values()), usage


async def _plot_with_line(pilot: Pilot[None]) -> UtilizationPlot:
    screen = await _open(pilot, MAIN_KEY)
    assert isinstance(screen, SessionScreen)
    plot = screen.query_one(UtilizationPlot)
    # Low replies below a line at 45%: every column crosses the line's row with an empty cell, so the line shows.
    samples = tuple(TimelineSample("usage", f"r{n}", 10_000 + n * 100, 0.1 + n * 0.001, None) for n in range(30))
    plot.compaction_line = 0.45
    plot.timeline = Timeline(samples, 100_000)
    await pilot.pause()
    return plot


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("size", SIZES)
async def test_the_plots_compaction_line_stands_out_in_256_colours(sessions: Path, tmp_path: Path,
                                                                   size: tuple[int, int], theme: str) -> None:
    app, _ = make_app([sessions], tmp_path / "state", theme=theme)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        plot = await _plot_with_line(pilot)
        line = [s for s in _segments(plot) if "┈" in s.text]
        assert line
        worst = min(contrast(s) for s in line)
        assert worst >= 3.0, worst
