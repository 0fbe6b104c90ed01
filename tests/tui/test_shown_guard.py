"""Keeps new TUI code on the safe path for session data (docs/hostile-input.md, "The guard").

Textual parses a plain ``str`` as markup where a widget takes content: ``Static``/``Label`` and their ``update``, a
border title, a ``DataTable`` cell or column, a tree leaf, a selection or radio label, a notification (unless
``markup=False``). This test reads every module under ``tui/`` (the command line aside) and fails on any such place
that is handed a string built at run time — an f-string, a concatenation, ``.format``/``.join``/``str()``, an
attribute or item of some value, a parameter typed ``str``, or a local variable assigned any of these — instead of a
string literal or a value made by ``tui.shown`` (``shown``, ``shown_text``, ``shown_markup``) or another function
that returns ``Content``/``Text``. What it cannot see (a helper that returns a plain ``str``, control characters in
a ``Content`` built by hand) is what ``tests/adversarial/test_terminal_tui.py`` checks on the screen.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

TUI = Path(__file__).resolve().parents[2] / "tui"
SINK_ATTRIBUTES = frozenset({"border_title", "border_subtitle", "label", "tooltip"})
SINK_CALLS = frozenset({"Static", "Label", "Button", "Checkbox", "RadioButton", "Selection", "Option", "update",
                        "add_leaf", "add_column", "notify"})
ALL_ARGUMENTS = frozenset({"add_row"})
STRING_BUILDERS = frozenset({"format", "join", "str", "replace", "strip", "lower", "upper", "title"})


def _modules() -> list[Path]:
    return sorted(p for p in TUI.rglob("*.py") if "cli" not in p.relative_to(TUI).parts and p.name != "shown.py")


class _Scope:
    """What a function says about its local names: parameters typed ``str`` and every value assigned to each."""

    def __init__(self, function: ast.FunctionDef | ast.AsyncFunctionDef | None) -> None:
        self.str_params: set[str] = set()
        self.assigned: dict[str, list[ast.expr]] = {}
        if function is None:
            return
        for arg in [*function.args.args, *function.args.kwonlyargs]:
            if arg.annotation is not None and "str" in ast.unparse(arg.annotation).split(" | ") and \
                    "Content" not in ast.unparse(arg.annotation):
                self.str_params.add(arg.arg)
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name) and \
                    node.value is not None:
                self.assigned.setdefault(node.target.id, []).append(
                    node.value if isinstance(node, ast.AnnAssign) else ast.JoinedStr(values=[]))


def _built_at_run_time(node: ast.expr, scope: _Scope, seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``node`` may be a plain string made from data (see the module docstring)."""
    if isinstance(node, ast.Constant):
        return False
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _built_at_run_time(node.left, scope, seen) or _built_at_run_time(node.right, scope, seen) or (
            isinstance(node.left, ast.Constant) and isinstance(node.left.value, str))
    if isinstance(node, ast.IfExp):
        return _built_at_run_time(node.body, scope, seen) or _built_at_run_time(node.orelse, scope, seen)
    if isinstance(node, ast.BoolOp):
        return any(_built_at_run_time(v, scope, seen) for v in node.values)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute):  # "x".join(…) builds a str; Content("\n").join(…) builds Content
            return func.attr in STRING_BUILDERS and not isinstance(func.value, ast.Call)
        return isinstance(func, ast.Name) and func.id in STRING_BUILDERS
    if isinstance(node, ast.Attribute):
        return not node.attr.isupper()  # a class constant (TITLE) is ours; any other attribute may be data
    if isinstance(node, ast.Subscript):
        return True
    if isinstance(node, ast.Name):
        if node.id in scope.str_params:
            return True
        if node.id in seen:
            return False
        return any(_built_at_run_time(v, scope, seen | {node.id}) for v in scope.assigned.get(node.id, []))
    return False


def _markup_off(call: ast.Call) -> bool:
    return any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False
               for k in call.keywords)


def _findings(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    scopes: list[tuple[ast.AST, _Scope]] = [(tree, _Scope(None))]
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            scopes.append((node, _Scope(node)))
    for owner, scope in scopes:
        body = owner.body if isinstance(owner, (ast.FunctionDef, ast.AsyncFunctionDef)) else [
            n for n in owner.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]  # type: ignore[attr-defined]
        for node in (n for statement in body for n in ast.walk(statement)):
            where = f"{path.relative_to(TUI.parent)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and target.attr in SINK_ATTRIBUTES and \
                            _built_at_run_time(node.value, scope):
                        yield f"{where}: {ast.unparse(target)} = {ast.unparse(node.value)}"
            elif isinstance(node, ast.Call):
                func = node.func
                name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
                if name in SINK_CALLS and not _markup_off(node):
                    args = [*node.args[:1], *(k.value for k in node.keywords if k.arg in ("title", "tooltip"))]
                elif name in ALL_ARGUMENTS:
                    args = list(node.args)
                else:
                    continue
                for arg in args:
                    if _built_at_run_time(arg.value if isinstance(arg, ast.Starred) else arg, scope):
                        yield f"{where}: {name}({ast.unparse(arg)})"


def test_the_guard_sees_the_unsafe_shapes() -> None:
    """Each shape this guard exists for is found (so a passing guard means something)."""
    source = '''
def show(self, text: str, problem: str, content: Content) -> None:
    preview.border_title = f"{key} · {model}"
    box.border_title = self._title
    status = f"No session matches {self.filter_text}"
    self.query_one(Static).update(status)
    yield Static(problem)
    table.add_row(row.key, Text("ok"))
    self.notify(f"{label} written")
    ok.border_title = shown(f"{key}")
    ok.update(content)
    self.notify(f"{label} written", markup=False)
    card.border_title = self.TITLE
'''
    path = TUI / "_guard_sample.py"
    path.write_text(source, encoding="utf-8")
    try:
        found = list(_findings(path))
    finally:
        path.unlink()
    assert len(found) == 6, found


@pytest.mark.parametrize("module", _modules(), ids=lambda p: str(p.relative_to(TUI)))
def test_session_data_reaches_widgets_only_through_tui_shown(module: Path) -> None:
    assert list(_findings(module)) == []
