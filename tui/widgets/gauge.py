"""The large context gauge: a bar with the engine's markers under it and a legend naming them.

Markers are the engine's (:class:`engine.accounting.gauge.Marker`): G gauge shown to the agent, C checkpoint, F memory
flush points, M pre-compaction margin, K the agent's own compaction line. After a compaction with no usage
since, the engine reports ``tokens=None`` and the bar says "unknown" instead of a stale figure.
"""

from __future__ import annotations

from textual.content import Content
from textual.geometry import Size
from textual.reactive import reactive
from textual.widget import Widget

from engine import GaugeReading, Marker, SessionSnapshot
from tui.widgets.levels import LEVEL_COLOR, LEVEL_TEXT, marker_glyph

__all__ = ["GaugeBar", "gauge_content"]

_EIGHTHS = " ▏▎▍▌▋▊▉"
# Text variants of the theme colours: the letters must stay readable on light themes too.
_MARKER_COLOR = {
    "G": "$text-warning", "C": "$text-warning", "F": "$text-secondary", "M": "$text-error", "K": "$text-error",
}


def _style(glyph: str) -> str:
    return f"bold {_MARKER_COLOR.get(glyph, '$foreground')}"


def _bar(reading: GaugeReading, width: int) -> Content:
    if reading.utilization is None:
        return Content.styled("╌" * width, "$primary")
    cells = min(max(reading.utilization, 0.0), 1.0) * width
    full = int(cells)
    partial = _EIGHTHS[int((cells - full) * 8)] if full < width else ""
    filled = "█" * full + partial.strip()
    color = f"${LEVEL_COLOR[reading.level]}"
    return Content.assemble((filled, color), ("░" * (width - len(filled)), "$foreground-muted"))


def _ticks(markers: tuple[Marker, ...], width: int) -> Content:
    cells: list[tuple[str, str]] = [(" ", "")] * width
    for marker in markers:
        glyph = marker_glyph(marker.name)
        column = min(width - 1, max(0, round(marker.fraction * (width - 1))))
        while column < width - 1 and cells[column][0] != " ":
            column += 1  # two markers in one cell: shift right rather than hide one
        cells[column] = (glyph, _style(glyph))
    return Content.assemble(*cells)


def _legend(reading: GaugeReading, width: int) -> list[Content]:
    by_name = {m.name: m for m in reading.markers}
    flush = "/".join(f"{round(m.fraction * 100)}" for m in reading.markers if m.name.startswith("flush-"))
    items: list[Content] = []
    if "compaction" in by_name:
        line = by_name["compaction"]
        text = f" agent compacts at {line.tokens:,} ({line.fraction:.0%})"
        items.append(Content.assemble(("K", _style("K")), text))
    if "pre-compaction" in by_name:
        items.append(Content.assemble(("M", _style("M")), f" margin {by_name['pre-compaction'].tokens:,}"))
    if "gauge" in by_name:
        items.append(Content.assemble(("G", _style("G")), f" gauge {by_name['gauge'].fraction:.0%}"))
    if "checkpoint" in by_name:
        items.append(Content.assemble(("C", _style("C")), f" checkpoint {by_name['checkpoint'].fraction:.0%}"))
    if flush:
        items.append(Content.assemble(("F", _style("F")), f" flush {flush}%"))
    lines: list[Content] = []
    current = Content("")
    for item in items:
        candidate = item if not current else current + Content.styled("  ·  ", "$foreground-muted") + item
        if current and candidate.cell_length > width:
            lines.append(current)
            current = item
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def _headline(snapshot: SessionSnapshot) -> Content:
    reading = snapshot.gauge
    window = f"{reading.window.tokens:,}"
    color = f"bold $text-{LEVEL_COLOR[reading.level]}"
    if reading.tokens is None or reading.utilization is None:
        return Content.assemble(
            ("UNKNOWN", color),
            f"  ? / {window} tokens  ",
            (("compacted" if reading.unknown_reason == "after compaction" else "no usage reported yet")
             + ": the next reply will tell", "$text-muted"),
        )
    return Content.assemble(
        (f"{reading.utilization:.0%}", color),
        f"  {reading.tokens:,} / {window} tokens  ",
        (LEVEL_TEXT[reading.level], f"$text-{LEVEL_COLOR[reading.level]}"),
    )


def gauge_content(snapshot: SessionSnapshot, width: int) -> Content:
    """The gauge of ``snapshot`` drawn ``width`` cells wide: headline, bar, marker ticks, legend."""
    width = max(width, 10)
    reading = snapshot.gauge
    lines = [_headline(snapshot), _bar(reading, width), _ticks(reading.markers, width), *_legend(reading, width)]
    return Content("\n").join(lines)


class GaugeBar(Widget):
    """The session view's large gauge; set :attr:`snapshot` to redraw it."""

    DEFAULT_CSS = """
    GaugeBar { height: auto; }
    """

    snapshot: reactive[SessionSnapshot | None] = reactive(None, layout=True)

    def render(self) -> Content:
        if self.snapshot is None:
            return Content.styled("reading…", "$text-muted")
        return gauge_content(self.snapshot, self.size.width)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # Measured at the width the layout offers: the default renders first, and ``self.size`` inside a layout
        # pass makes Textual arrange the whole screen again to find this widget's region (~30 ms per pass).
        if self.snapshot is None:
            return 1
        content = gauge_content(self.snapshot, width)
        return content.get_height(self.styles, width)  # type: ignore[arg-type] # Textual passes its styles the same way
