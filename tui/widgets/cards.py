"""Small bordered cards of the session view: context figures, risk, and where the session lives."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from engine.session import SessionSnapshot
from tui.widgets.labels import ago, shorten_middle
from tui.widgets.levels import LEVEL_SHORT, RISK_COLOR, RISK_OF_LEVEL

__all__ = ["Card", "ContextCard", "RiskCard", "SessionCard"]


def _rows(pairs: list[tuple[str, str | Content]]) -> Content:
    width = max(len(label) for label, _ in pairs)
    return Content("\n").join(
        Content.assemble((f"{label:<{width}} ", "$text-muted"), value) for label, value in pairs
    )


class Card(Widget):
    """A bordered card that renders :attr:`snapshot` with :meth:`describe`."""

    TITLE = ""
    snapshot: reactive[SessionSnapshot | None] = reactive(None, layout=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="card")
        self.border_title = self.TITLE

    def describe(self, snapshot: SessionSnapshot) -> Content:
        raise NotImplementedError

    def render(self) -> Content:
        return Content("") if self.snapshot is None else self.describe(self.snapshot)


class ContextCard(Card):
    """Where the token figure comes from and what the agent itself believes."""

    TITLE = "Context"

    def describe(self, snapshot: SessionSnapshot) -> Content:
        tokens = snapshot.tokens
        figure = "unknown after compaction" if tokens.tokens is None else f"{tokens.tokens:,} ({tokens.source})"
        estimate = f"{tokens.agent_estimate:,}" if tokens.agent_estimate_known else "unknown"
        return _rows([
            ("tokens", figure),
            ("agent sees", estimate),
            ("window", f"{snapshot.window.tokens:,} ({snapshot.window.source})"),
            ("compacts at", f"{snapshot.gauge.compaction_line:,}"),
        ])


class RiskCard(Card):
    """Risk as far as the gauge tells it; the engine's degradation report will refine it (SPEC §6.3)."""

    TITLE = "Risk"

    def describe(self, snapshot: SessionSnapshot) -> Content:
        level = snapshot.gauge.level
        risk = RISK_OF_LEVEL[level]
        color = RISK_COLOR[risk]
        malformed = len(snapshot.malformed_lines)
        return _rows([
            ("risk", Content.styled(risk.upper(), f"bold $text-{color}")),
            ("gauge", LEVEL_SHORT[level]),
            ("compactions", f"{snapshot.compactions} ({snapshot.view.compactions_on_path} on path)"),
            ("bad lines", Content.styled(str(malformed), "$text-error") if malformed else "0"),
        ])


class SessionCard(Card):
    """Model, store and activity of the session."""

    TITLE = "Session"

    def __init__(self, *, clock: Callable[[], datetime] | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock or (lambda: datetime.now(UTC))

    def describe(self, snapshot: SessionSnapshot) -> Content:
        source = snapshot.source
        kind = source.format if source.kind == "live" else f"{source.format}, archive"
        return _rows([
            ("model", snapshot.model or "-"),
            ("store", kind),
            ("file", shorten_middle(source.path.name, 40)),
            ("active", f"{ago(snapshot.last_activity, self._clock())} · {snapshot.entries:,} entries"),
        ])
