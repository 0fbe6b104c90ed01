"""The building blocks of a simulated agent's turns: tool steps, assistant steps, turns, and the agent's ledger.

:class:`ToolBox` renders realistic tool calls and their results (reads, writes, edits, shell commands with
OpenClaw's ``exec`` details); :class:`Ledger` remembers what the agent decided, finished and left open, and writes
the compaction summary and the pre-compaction memory note from it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sim.synthetic import ModelSpec, compaction_summary
from sim.synthetic_text import pytest_log, source_file

__all__ = ["FLUSH_PROMPT", "AssistantStep", "Ledger", "ToolBox", "ToolStep", "Turn"]

FLUSH_PROMPT = (
    "Pre-compaction memory flush. Store durable memories now (use memory/YYYY-MM-DD.md; create memory/ if needed). "
    "If nothing to store, reply with NO_REPLY."
)
"""OpenClaw's pre-compaction flush prompt, verbatim from a real transcript.

See docs/formats.md, OpenClaw content in transcripts.
"""


@dataclass(frozen=True, slots=True)
class ToolStep:
    """One tool call and the result it will get."""

    name: str
    arguments: Mapping[str, Any]
    output: str
    details: Mapping[str, Any] | None = None
    is_error: bool = False
    seconds: float = 0.5
    """How long the tool runs at pace 1.0."""
    effect: Callable[[], None] | None = field(default=None, compare=False)
    """What the tool really does on disk, run just before its result is recorded (the memory flush's write)."""


@dataclass(frozen=True, slots=True)
class AssistantStep:
    """One assistant message: optional thinking and text, then tool calls (none on the final answer)."""

    thinking: str | None
    text: str | None
    calls: tuple[ToolStep, ...] = ()


@dataclass(frozen=True, slots=True)
class Turn:
    """A user message and the agent run that answers it, with what it means for the session's state."""

    user: str
    steps: tuple[AssistantStep, ...]
    decisions: tuple[str, ...] = ()
    done: tuple[str, ...] = ()
    todos: tuple[str, ...] = ()
    resolved: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    switch_to: ModelSpec | None = None
    """Model selected (``/model``) just before this turn."""
    thinking_level: str | None = None


@dataclass(slots=True)
class Ledger:
    """What the agent knows it has done and decided; rendered into summaries and memory notes."""

    goal: str = "Add per-merchant rate limiting to the payments API (POST /v1/payments, /v1/refunds)."
    decisions: list[str] = field(default_factory=list)
    done: list[str] = field(default_factory=list)
    todos: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    critical: list[str] = field(default_factory=list)
    """Facts a summary must always carry (where the code lives, how to run the tests)."""

    def record(self, turn: Turn) -> None:
        """Fold a finished turn into the ledger."""
        self.decisions += [d for d in turn.decisions if d not in self.decisions]
        self.done += [d for d in turn.done if d not in self.done]
        self.constraints += [c for c in turn.constraints if c not in self.constraints]
        self.todos = [t for t in self.todos if t not in turn.resolved] + [t for t in turn.todos if t not in self.todos]

    def summary(self, read_files: list[str], modified_files: list[str], split_turn: str | None) -> str:
        """The compaction summary, in pi's template."""
        return compaction_summary(
            goal=self.goal, constraints=self.constraints[-8:], done=self.done[-12:], in_progress=self.todos[-1:],
            blocked=[], decisions=self.decisions[-10:], next_steps=self.todos[:-1][:5], critical=self.critical,
            read_files=read_files, modified_files=modified_files, split_turn=split_turn,
        )

    def memory_note(self, day: str) -> str:
        """What the agent stores in ``memory/<day>.md`` when asked to flush."""
        lines = [f"## {day} — payments rate limiting", "", "Decisions:"]
        lines += [f"- {d}" for d in self.decisions[-8:]] or ["- none yet"]
        lines += ["", "Preferences:"] + ([f"- {c}" for c in self.constraints[-6:]] or ["- none"])
        lines += ["", "Open:"] + ([f"- {t}" for t in self.todos[:6]] or ["- nothing open"])
        return "\n".join(lines) + "\n"


_CONFIRM = ("ok go ahead", "yes", "yes, do it", "sounds good, go", "ok", "go for it", "yep, ship it", "ok do it")


class ToolBox:
    """Renders tool steps with output drawn from ``rng``; ``scale`` stretches file and log sizes."""

    def __init__(self, rng: random.Random, *, cwd: str, scale: float = 1.0) -> None:
        self.rng = rng
        self.cwd = cwd
        self.scale = scale

    def _lines(self, base: int) -> int:
        return max(20, int(base * self.scale * self.rng.uniform(1.0, 1.4)))

    def read(self, path: str, lines: int) -> ToolStep:
        """A ``read`` of a file of about ``lines`` lines."""
        return ToolStep("read", {"path": path}, source_file(self.rng, path, self._lines(lines)), seconds=0.3)

    def write(self, path: str, lines: int) -> ToolStep:
        """A ``write`` of a new file of about ``lines`` lines (its content travels in the arguments)."""
        return self.write_text(path, source_file(self.rng, path, self._lines(lines)))

    def write_text(self, path: str, content: str) -> ToolStep:
        """A ``write`` of ``content`` to ``path``."""
        return ToolStep("write", {"path": path, "content": content},
                        f"Successfully wrote {len(content.encode())} bytes to {path}", seconds=0.3)

    def edit(self, path: str, old: str, new: str) -> ToolStep:
        """An ``edit`` replacing ``old`` with ``new``, with pi's diff details."""
        line = self.rng.randint(12, 300)
        diff = "\n".join([f"     ...\n   1 {self.rng.choice(('', '    '))}# {path}"]
                         + [f"-{line + i:4d} {text}" for i, text in enumerate(old.splitlines())]
                         + [f"+{line + i:4d} {text}" for i, text in enumerate(new.splitlines())])
        result = f"Successfully replaced text in {path}. Changed {len(old)} characters to {len(new)} characters."
        return ToolStep("edit", {"path": path, "oldText": old, "newText": new}, result, {"diff": diff}, seconds=0.3)

    def exec(self, command: str, output: str, *, exit_code: int = 0, seconds: float = 1.2) -> ToolStep:
        """An ``exec`` with OpenClaw's details (the output is repeated in ``aggregated``)."""
        details = {"status": "completed", "exitCode": exit_code, "durationMs": int(seconds * 1000 * 3.1),
                   "aggregated": output, "cwd": self.cwd}
        return ToolStep("exec", {"command": command}, output, details, is_error=False, seconds=seconds)

    def pytest(self, tests: int, failures: int = 0, *, verbose: bool = False) -> ToolStep:
        """``pytest tests/payments`` with a realistic log."""
        log = pytest_log(self.rng, tests=tests, failures=failures)
        if verbose:
            log = "\n".join(f"tests/payments/test_{self.rng.choice(('api', 'ratelimit', 'refunds'))}.py::test_case_{i}"
                            f" PASSED [{i * 100 // tests:3d}%]" for i in range(tests)) + "\n" + log
        return self.exec("pytest tests/payments -q" + (" -v" if verbose else ""), log,
                         exit_code=1 if failures else 0, seconds=1.6)

    def confirm(self) -> str:
        """A short user confirmation."""
        return self.rng.choice(_CONFIRM)

