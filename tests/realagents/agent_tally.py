"""Counting the fields compared between a real agent and ctxscope's reading (printed at the end of the run)."""

from __future__ import annotations

from collections import Counter
from typing import Any


class Tally:
    """Compared and agreeing fields, by agent and field name."""

    def __init__(self) -> None:
        self.compared: Counter[tuple[str, str]] = Counter()
        self.agreed: Counter[tuple[str, str]] = Counter()

    def check(self, agent: str, field: str, ours: Any, theirs: Any, where: str) -> None:
        """Record one comparison and fail it loudly when the two readings differ."""
        self.compared[(agent, field)] += 1
        assert ours == theirs, f"{agent} {field} at {where}: ctxscope {ours!r} != agent {theirs!r}"
        self.agreed[(agent, field)] += 1

    def lines(self) -> list[str]:
        out = []
        for agent in sorted({a for a, _ in self.compared}):
            total = sum(n for (a, _), n in self.compared.items() if a == agent)
            agreed = sum(n for (a, _), n in self.agreed.items() if a == agent)
            per = ", ".join(f"{f} {self.agreed[(a, f)]}/{n}" for (a, f), n in sorted(self.compared.items())
                            if a == agent)
            out.append(f"{agent} oracle: {agreed}/{total} compared fields agree ({per})")
        return out


TALLY = Tally()
