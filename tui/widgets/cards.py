"""Small bordered cards of the session view: context figures, degradation risk, cost, and where the session lives.

The risk and cost cards render the engine's :class:`~engine.compaction.degradation.DegradationAssessment` and
:class:`~engine.session.cost.SessionCost` (carried by :class:`~engine.live.insight.SessionInsight`);
they compute nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime

from textual.content import Content
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from engine import DegradationAssessment, SessionCost, SessionInsight, SessionSnapshot, agent_estimate_text, percent
from tui.shown import shown
from tui.widgets.labels import ago, duration, money, shorten_middle
from tui.widgets.levels import RISK_COLOR

__all__ = ["Card", "ContextCard", "CostCard", "RiskCard", "SessionCard", "card_advice"]

_SPEND_SOURCE = {
    "usage.cost": "recorded",
    "price-table": "price table",
    "mixed": "mixed",
    "unknown": "unknown",
}


def _rows(pairs: list[tuple[str, str | Content]]) -> Content:
    width = max(len(label) for label, _ in pairs)
    return Content("\n").join(
        Content.assemble((f"{label:<{width}} ", "$text-muted"), shown(value) if isinstance(value, str) else value)
        for label, value in pairs
    )


def card_advice(recommendation: str) -> list[str]:
    """The advice in two lines at most: the first, then the rest joined, numbered steps as ``a → b → c``.

    The card does not wrap; ``r`` (:mod:`tui.dialogs.risk_detail`) shows the advice as the engine wrote it.
    """
    lines = [line.strip() for line in recommendation.splitlines() if line.strip()]
    if len(lines) <= 2:
        return lines
    lead, *steps = lines[1:]
    steps = [_STEP_NUMBER.sub("", step) for step in steps]
    steps = [step[0].lower() + step[1:] if step[1:2].islower() else step for step in steps]
    return [lines[0], f"{lead} {' → '.join(steps)}"]


_STEP_NUMBER = re.compile(r"^\d+[.)]\s*")


def _muted(text: str) -> Content:
    return Content.styled(text, "$text-muted")


class Card(Widget):
    """A bordered card that renders :attr:`snapshot` (and :attr:`insight`) with :meth:`describe`."""

    TITLE = ""
    # Each change repaints the card; the screen is laid out again only when the card's height changes (refit).
    snapshot: reactive[SessionSnapshot | None] = reactive(None, repaint=False)
    insight: reactive[SessionInsight | None] = reactive(None, repaint=False)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, classes="card")
        self.border_title = self.TITLE
        self._laid_out_rows: int | None = None
        self._described: Content | None = None
        """What refit described, for the render it asks for (described once per change, not twice)."""

    def watch_snapshot(self) -> None:
        self.refit()

    def watch_insight(self) -> None:
        self.refit()

    def refit(self) -> None:
        """Redraw with the current values, and ask for a layout pass only when the number of rows changed.

        A layout pass arranges and renders the whole screen again: with one per new value (``layout=True``),
        opening a session laid the screen out five times as its figures arrived (docs/architecture.md, Targets).
        """
        self._described = self._describe()
        self.refresh(layout=len(self._described.split("\n")) != self._laid_out_rows)

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        height = super().get_content_height(container, viewport, width)
        self._laid_out_rows = height
        return height

    def describe(self, snapshot: SessionSnapshot) -> Content:
        raise NotImplementedError

    def render(self) -> Content:
        # Later repaints describe afresh: the session card's "ago" moves with the clock.
        described, self._described = self._described, None
        return described if described is not None else self._describe()

    def _describe(self) -> Content:
        return Content("") if self.snapshot is None else self.describe(self.snapshot)


class ContextCard(Card):
    """Where the token figure comes from and what the agent itself believes."""

    TITLE = "Context"

    def describe(self, snapshot: SessionSnapshot) -> Content:
        tokens = snapshot.tokens
        figure = snapshot.gauge.unknown_text if tokens.tokens is None else f"{tokens.tokens:,} ({tokens.source})"
        estimate = agent_estimate_text(tokens.agent_estimate) if tokens.agent_estimate_known else "unknown"
        return _rows([
            ("tokens", figure),
            ("agent sees", estimate),
            ("window", f"{snapshot.window.tokens:,} ({snapshot.window.source})"),
            ("compacts at", snapshot.gauge.compaction_text),
        ])


def risk_content(level: str) -> Content:
    """A degradation level in its theme colour: ``$success`` low … ``$error`` high and critical."""
    style = f"bold $text-{RISK_COLOR.get(level, 'primary')}"
    return Content.styled(level.upper() if level in ("high", "critical") else level, style)


class RiskCard(Card):
    """The engine's degradation assessment: level, loss, spam, fallbacks, lost decisions, advice.

    A click posts :class:`RiskCard.Chosen`: the session view then shows the card whole (its lines are cut here).
    """

    TITLE = "Degradation risk"

    class Chosen(Message):
        """The card was clicked."""

    def __init__(self, *, whole: bool = False, id: str | None = None) -> None:
        super().__init__(id=id)
        self._whole = whole
        """Every line of the advice (the detail view), not the two the card keeps."""
        if not whole:
            self.border_subtitle = "r: whole"

    def on_click(self) -> None:
        self.post_message(self.Chosen())

    def describe(self, snapshot: SessionSnapshot) -> Content:
        if self.insight is None:
            return _muted("assessing…")
        assessment: DegradationAssessment = self.insight.degradation
        report = assessment.report
        count = report.compaction_count
        head = Content.assemble(
            risk_content(report.level),
            f" · {count} compaction{'s' if count != 1 else ''} ({snapshot.view.compactions_on_path} on path)",
            f" · {_loss_text(assessment)} lost" if count else "",
        )
        spam: str | Content = _muted("none")
        if assessment.compaction_spam:
            spam = Content.styled(assessment.spam_detail or "yes", "$text-error")
        elif assessment.noop_compactions:
            spam = Content.styled(f"{len(assessment.noop_compactions)} summarized nothing new", "$text-warning")
        fallbacks: str | Content = _muted("none")
        if assessment.fallback_summaries:
            n = assessment.fallback_summaries
            fallbacks = Content.styled(f"{n} summar{'ies' if n > 1 else 'y'} unavailable", "$text-warning")
        after: str | Content = _muted("no compaction yet")
        if assessment.post_compaction_tokens is not None:
            over = assessment.over_line_after_compaction
            # Not the gauge's figure: the context the first call after the compaction sent (it can be larger than
            # now, when that call still carried a big tool output), so it is named for what it is.
            after = Content.assemble(  # the verdict first: at 80 columns the card cuts the end of the row
                ("over the compaction line", "$text-error") if over else ("below the compaction line", ""),
                f": {assessment.post_compaction_tokens:,} tokens {assessment.post_compaction_basis}",
            )
        share, basis = assessment.loss
        lost: str | Content = _muted("nothing compacted yet")
        if count or assessment.lost_decisions_share is not None:
            lost = Content.styled(f"{percent(share)} {basis}", "$text-warning" if share else "")
        advice = report.recommendation.splitlines() if self._whole else card_advice(report.recommendation)
        return _rows([
            ("risk", head),
            ("spam", spam),
            ("fallbacks", fallbacks),
            ("after last", after),  # "last" = the latest compaction, as the risk row above counts them
            ("lost", lost),
            # Two rows at most, so the plot below keeps its height at 36 rows; the later rows hold the commands.
            *((("advice" if i == 0 else ""), line.strip()) for i, line in enumerate(advice)),
        ])


class CostCard(Card):
    """The engine's cost figures: spend and its source, cache writes, warm/cold, next turn."""

    TITLE = "Cost"

    cost: reactive[SessionCost | None] = reactive(None, repaint=False)
    """Re-priced as time passes (the cache turns cold without any write); else the assessment's figures."""

    def watch_cost(self) -> None:
        self.refit()

    def describe(self, snapshot: SessionSnapshot) -> Content:
        cost = self.cost or (self.insight.cost if self.insight else None)
        if cost is None:
            return _muted("pricing…")
        spend = Content.assemble(money(cost.spend_usd), (f" ({_SPEND_SOURCE[cost.spend_source]})", "$text-muted"))
        if cost.unpriced_calls:
            spend += Content.styled(f" +{cost.unpriced_calls} unpriced", "$text-warning")
        share = "-" if cost.cache_write_share is None else f"{cost.cache_write_share:.0%} of spend"
        ttl = duration(cost.cache_ttl_seconds)
        cache: Content
        if cost.cache_warm is None or cost.seconds_since_last_call is None:
            cache = _muted("no call yet")
        elif cost.cache_warm:
            cache = Content.assemble(("warm", "bold $text-success"),
                                     f" · {duration(cost.seconds_since_last_call)} of {ttl}")
        else:
            cache = Content.assemble(("cold", "bold $text-warning"),
                                     f" · {duration(cost.seconds_since_last_call)} > {ttl}")
        if cost.next_turn_cold_cost_usd is None:
            next_turn: str | Content = _muted("unknown price")
        elif cost.cache_warm:
            next_turn = f"{money(cost.next_turn_warm_cost_usd)}, {money(cost.next_turn_cold_cost_usd)} if cold"
        else:
            next_turn = f"{money(cost.next_turn_cold_cost_usd)} (cold)"
        return _rows([
            ("spend", spend),
            ("writes", share),
            ("cache", cache),
            ("next turn", next_turn),
            ("prices", cost.price_source or "-"),
        ])


class SessionCard(Card):
    """Model, store and activity of the session."""

    TITLE = "Session"

    def __init__(self, *, clock: Callable[[], datetime] | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock or (lambda: datetime.now(UTC))

    def describe(self, snapshot: SessionSnapshot) -> Content:
        source = snapshot.source
        kind = source.format if source.kind == "live" else f"{source.format}, {source.kind}"
        malformed = len(snapshot.malformed_lines)
        rows: list[tuple[str, str | Content]] = [
            ("model", snapshot.model or "-"),
            ("store", kind),
            ("file", shorten_middle(source.path.name, 40)),
            ("active", f"{ago(snapshot.last_activity, self._clock())} · {snapshot.entries:,} entries"),
        ]
        if malformed:
            rows.append(("bad lines", Content.styled(str(malformed), "$text-error")))
        return _rows(rows)


def _loss_text(assessment: DegradationAssessment) -> str:
    """The loss figure of the risk line: the same as the "lost" row (measured when possible, else estimated)."""
    share, _ = assessment.loss
    return percent(share) if assessment.lost_decisions_share is not None else f"~{percent(share)}"
