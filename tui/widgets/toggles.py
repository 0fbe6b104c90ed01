"""Radio buttons, check boxes and selection lists whose state shows in the glyph, not only in its colour.

Textual draws every state with the same ``▐●▌`` / ``▐X▌``, on and off told apart by colour alone: in plain text
(a screen reader, a screenshot as text, 16 colours) every layer looked chosen and every box ticked. Here the glyph
itself says it: ``●`` chosen and ``○`` not, ``X`` ticked and a blank not.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from textual.binding import BindingType
from textual.strip import Strip
from textual.widgets import Checkbox, RadioButton, SelectionList

from tui.widgets.movement import movement_keys

__all__ = ["StateCheckbox", "StateRadioButton", "StateSelectionList"]

RADIO_ON, RADIO_OFF = "●", "○"
BOX_ON, BOX_OFF = "X", " "


class StateRadioButton(RadioButton):
    """A :class:`~textual.widgets.RadioButton` drawn ``●`` when chosen, ``○`` when not."""

    BUTTON_INNER = RADIO_OFF

    def watch_value(self) -> None:
        self.BUTTON_INNER = RADIO_ON if self.value else RADIO_OFF
        super().watch_value()  # the -on class and the Changed message


class StateCheckbox(Checkbox):
    """A :class:`~textual.widgets.Checkbox` drawn ``X`` when ticked, blank when not."""

    BUTTON_INNER = BOX_OFF

    def watch_value(self) -> None:
        self.BUTTON_INNER = BOX_ON if self.value else BOX_OFF
        super().watch_value()  # the -on class and the Changed message


class StateSelectionList(SelectionList[str]):
    """A :class:`~textual.widgets.SelectionList` whose boxes read ``X`` when marked, blank when not."""

    # Only the top-consumers chooser uses it, a dialog: k moves there (docs/keys.md).
    BINDINGS: ClassVar[list[BindingType]] = [
        *movement_keys(up="cursor_up", down="cursor_down", first="first", last="last", in_dialog=True),
    ]

    def render_line(self, y: int) -> Strip:
        line = super().render_line(y)
        segments = list(line)
        index = self.scroll_offset.y + y
        if len(segments) < 3 or index >= self.option_count:
            return line
        marked = self.get_option_at_index(index).value in self.selected
        inner = segments[1]
        segments[1] = Segment(BOX_ON if marked else BOX_OFF, inner.style, inner.control)
        return Strip(segments, line.cell_length)
