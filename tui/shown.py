"""Session data on screen: every value from a transcript or an agent config becomes text here, never markup and
never a control sequence (docs/hostile-input.md).

Textual parses a plain ``str`` as markup almost everywhere it takes one (``Static``, ``Label``, ``update``,
``border_title``, a ``DataTable`` cell, a ``Tree`` label, the command palette's help): a model named ``gpt-5[/]``
raises ``MarkupError``, ``draft [WIP]`` loses ``[WIP]``, and ``[@click=app.…]`` makes a click run an app action.
``Content`` and ``rich.text.Text`` are never parsed, but they pass escape sequences to the terminal as they are.
So a value is shown through one of these, which apply :func:`engine.text.terminal.terminal_safe` first:

* :func:`shown` — a ``Content`` for titles, border titles, ``Static``/``Label`` content and notifications;
* :func:`shown_text` — a ``rich.text.Text`` for table cells and tree labels;
* :func:`shown_markup` — escaped markup, for the few Textual APIs that take nothing but markup;
* :class:`ShownTextArea` — a ``TextArea`` (the compact dialog's editable summary) that keeps the exact text it is
  given, for the plan, and draws it without control characters.

``tests/tui/test_shown_guard.py`` keeps new code on this path.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.content import Content
from textual.markup import escape
from textual.strip import Strip
from textual.widgets import TextArea

from engine import strip_controls, terminal_safe

__all__ = ["ShownTextArea", "shown", "shown_markup", "shown_text"]


def shown(value: object, style: str = "", *, one_line: bool = True) -> Content:
    """``value`` as literal text in ``style`` (``one_line``: a newline is shown as ⏎, else kept)."""
    text = terminal_safe(str(value), one_line=one_line)
    return Content.styled(text, style) if style else Content(text)


def shown_text(value: object, style: str = "", *, one_line: bool = True, justify: str | None = None,
               overflow: str | None = None) -> Text:
    """``value`` as a ``rich.text.Text`` (a ``DataTable`` cell, a ``Tree`` label), literal."""
    return Text(terminal_safe(str(value), one_line=one_line), style=style, justify=justify,  # type: ignore[arg-type]
                overflow=overflow)  # type: ignore[arg-type]


def shown_markup(value: object, *, one_line: bool = True) -> str:
    """``value`` as markup that shows it literally: for APIs that parse every string they get."""
    return escape(terminal_safe(str(value), one_line=one_line))


class ShownTextArea(TextArea):
    """A ``TextArea`` whose drawn lines hold no control character; its ``text`` stays exactly what was loaded.

    Textual's ``TextArea`` draws its document as it is (Rich drops BEL, not ESC): an OSC 52 in a summary reached the
    terminal. Every character removed here takes no cell on a terminal, so the cursor and selection stay in place.
    """

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        segments = list(strip)
        if all(strip_controls(segment.text) is segment.text for segment in segments):
            return strip
        return Strip([Segment(strip_controls(s.text), s.style, s.control) for s in segments], strip.cell_length)
