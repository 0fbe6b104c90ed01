"""One ExitCode enum for every command: `help-exit-codes` prints it, and no module defines a code of its own."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tui.cli.exit_codes import ExitCode
from tui.cli.main import main

TUI = Path(__file__).resolve().parents[2] / "tui"


def test_help_exit_codes_lists_exactly_the_enum(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["help-exit-codes"]) == ExitCode.OK
    printed = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
    listed = [re.fullmatch(r"\s+(\d+)\s\s(.+)", line) for line in printed]
    assert all(listed), printed
    assert [(int(m[1]), m[2]) for m in listed if m] == [(code.value, code.meaning) for code in ExitCode]
    # The numbers scripts branch on (README, docs/architecture.md) never move.
    assert {code.name: code.value for code in ExitCode} == {
        "OK": 0, "FAILED": 1, "USAGE": 2, "NOT_FOUND": 3, "REFUSED": 4, "UNCONFIRMED": 5}


def test_no_module_of_the_tui_defines_an_exit_code_of_its_own() -> None:
    """A code is ExitCode's member everywhere: an ``EXIT_*`` name bound to a number is a second definition."""
    defined: list[str] = []
    for path in sorted(TUI.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Assign):
                continue
            names = [t for target in node.targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            for name, value in zip(names, values, strict=False):
                if isinstance(name, ast.Name) and name.id.startswith("EXIT_") and isinstance(value, ast.Constant):
                    defined.append(f"{path.relative_to(TUI.parent)}:{node.lineno} {name.id}")
    assert not defined
