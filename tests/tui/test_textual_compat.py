"""Canaries for tui/textual_compat.py: each checks the Textual behaviour that makes one shim necessary, and fails,
naming the shim to delete or rewrite, once upstream changes it. And a guard: no other module of the app reaches
into Textual's private names."""

from __future__ import annotations

import ast
import gc
import importlib
from pathlib import Path
from typing import ClassVar

import textual.widgets as public_widgets
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.dom import DOMNode
from textual.message_pump import MessagePump
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Label

from tui import textual_compat
from tui.textual_compat import StylesCache, ToastsOff, forget_style_memo, notifications_enabled
from tui.widgets.footer import KeyFooter

TUI = Path(__file__).resolve().parents[2] / "tui"


# -- Footer --------------------------------------------------------------------------------------------------------

def test_footer_key_is_still_private() -> None:
    assert "FooterKey" not in public_widgets.__all__ and not hasattr(public_widgets, "FooterKey"), (
        "textual.widgets exports FooterKey now: import it from there in tui/textual_compat.py, not from "
        "textual.widgets._footer")


def test_footer_composes_no_key_before_its_first_bindings_refresh() -> None:
    footer = Footer()
    assert list(footer.compose()) == [], (
        "Textual's Footer composes its keys before the first bindings refresh: delete mark_footer_keys_ready and "
        "footer_keys_ready (tui/textual_compat.py) and KeyFooter's early compose")


class _Keys(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("x", "bell", "Ring"), Binding("y", "bell", "Ring again")]

    def __init__(self, footer: Footer) -> None:
        super().__init__()
        self.footer = footer
        self.recomposed = 0

    def compose(self) -> ComposeResult:
        yield Label("keys")
        yield self.footer


def _counting(footer_class: type[Footer], app_box: list[_Keys]) -> type[Footer]:
    class Counting(footer_class):  # type: ignore[misc, valid-type]
        async def recompose(self) -> None:
            app_box[0].recomposed += 1
            await super().recompose()

    return Counting


async def _recomposes_on_unchanged_refreshes(footer_class: type[Footer]) -> int:
    box: list[_Keys] = []
    app = _Keys(_counting(footer_class, box)())
    box.append(app)
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        app.recomposed = 0
        for _ in range(3):  # the keys stay the same: nothing for the footer to show anew
            app.screen.refresh_bindings()
            await pilot.pause()
        for _ in range(20):  # a recompose waits for a refresh: give it message rounds, not time
            if app.recomposed >= 3:
                break
            await pilot.pause()
        return app.recomposed


async def test_textuals_footer_recomposes_on_every_bindings_refresh() -> None:
    assert await _recomposes_on_unchanged_refreshes(Footer) >= 3, (
        "Textual's Footer no longer recomposes when its keys did not change: KeyFooter (tui/widgets/footer.py) "
        "and the footer shims in tui/textual_compat.py can go")
    # The shim's side: KeyFooter recomposes only when what it shows changed.
    assert await _recomposes_on_unchanged_refreshes(KeyFooter) == 0


# -- Style memo (textual#6665) -------------------------------------------------------------------------------------

class _Rebuilds(App[None]):
    CSS = "Label { background: $panel; }"

    def compose(self) -> ComposeResult:
        yield Vertical(id="list")


def _style_caches() -> int:
    gc.collect()
    return sum(isinstance(o, StylesCache) for o in gc.get_objects())


async def test_style_memo_keeps_the_style_caches_of_removed_widgets() -> None:
    assert hasattr(StylesCache.get_inner_outer, "cache_clear"), (
        "StylesCache.get_inner_outer is no longer an lru_cache (textual#6665 fixed?): delete forget_style_memo "
        "(tui/textual_compat.py) and its call in tui/gc_pacing.py")
    app = _Rebuilds()
    async with app.run_test(size=(40, 60)) as pilot:
        box = app.query_one("#list")
        for _ in range(5):
            await box.remove_children()
            await box.mount_all(Label(f"card {n}") for n in range(20))
            await pilot.pause()
            await pilot.pause()
        await box.remove_children()
        await pilot.pause()
        kept = _style_caches()
        forget_style_memo()
        freed = kept - _style_caches()
    assert freed >= 40, (  # 80 of the 100 on Textual 8.2.8; none once the memo is cleared after each round
        f"Textual's get_inner_outer memo kept only {freed} style caches of removed widgets alive "
        "(textual#6665 fixed?): delete forget_style_memo (tui/textual_compat.py) and its call in tui/gc_pacing.py")


# -- Notifications -------------------------------------------------------------------------------------------------

class _Plain(App[None]):
    def compose(self) -> ComposeResult:
        yield Label("work")


class _Quiet(ToastsOff, _Plain):
    pass


async def _toasts_drawn(app: App[None]) -> int:
    async with app.run_test(size=(80, 20), notifications=True) as pilot:
        app.notify("something happened", timeout=30)
        await pilot.pause()
        await pilot.pause()
        return len([t for t in app.screen.query("Toast") if t.region])


async def test_textual_draws_a_toast_over_the_screen_and_toasts_off_stops_it() -> None:
    assert await _toasts_drawn(_Plain()) == 1, (
        "Textual no longer draws a toast for a notification: delete ToastsOff (tui/textual_compat.py)")
    assert hasattr(App, "_refresh_notifications"), (
        "Textual renamed App._refresh_notifications: ToastsOff (tui/textual_compat.py) no longer keeps toasts off")
    assert await _toasts_drawn(_Quiet()) == 0


def test_textual_has_no_public_switch_for_toasts() -> None:
    public = {name for name in dir(App) if not name.startswith("_") and ("notif" in name.lower() or "toast" in name)}
    known = {"notify", "action_notify", "clear_notifications", "NOTIFICATION_TIMEOUT", "notify_style_update"}
    assert public == known, (
        f"Textual's App has new public notification names {sorted(public)}: if one keeps toasts off or says whether "
        "notifications are on, use it and delete ToastsOff / notifications_enabled (tui/textual_compat.py)")


async def test_notifications_enabled_follows_run_test() -> None:
    for enabled in (True, False):
        app = _Plain()
        async with app.run_test(notifications=enabled):
            assert notifications_enabled(app) is enabled, (
                "Textual's private _disable_notifications changed: rewrite notifications_enabled "
                "(tui/textual_compat.py)")


# -- Bindings (textual#5477) ---------------------------------------------------------------------------------------

def test_only_the_app_can_bind_a_key_at_run_time() -> None:
    assert hasattr(App, "bind")
    assert not any(hasattr(cls, "bind") for cls in (Screen, Widget, DOMNode)), (
        "Screens or widgets can bind keys at run time now (textual#5477): call that in CompactDialog and delete "
        "bind_key (tui/textual_compat.py)")


async def test_bind_key_binds_on_the_instance_only() -> None:
    class Bound(Screen[None]):
        def action_ring(self) -> None:
            self.rung = True

    app = _Plain()
    async with app.run_test() as pilot:
        first, second = Bound(), Bound()
        textual_compat.bind_key(first, "z", "ring", "Ring")
        await app.push_screen(first)
        await pilot.press("z")
        assert getattr(first, "rung", False)
        await app.push_screen(second)
        await pilot.press("z")
        assert not getattr(second, "rung", False)


async def test_bind_key_again_replaces_the_description() -> None:
    # The compact dialog renames its confirm key when the prune layer is chosen: one binding, the new word.
    class Bound(Screen[None]):
        def action_ring(self) -> None:
            self.rung = True

    app = _Plain()
    async with app.run_test():
        screen = Bound()
        textual_compat.bind_key(screen, "ctrl+s", "ring", "Compact")
        textual_compat.bind_key(screen, "ctrl+s", "ring", "Prune")
        await app.push_screen(screen)
        described = [b.description for b in screen._bindings.key_to_bindings["ctrl+s"]]
        assert described == ["Prune"], described


# -- The guard -----------------------------------------------------------------------------------------------------

def _textual_private_names() -> set[str]:
    """The private names of Textual's classes and of their instances (set in ``__init__``)."""
    from textual.widgets import DataTable, Static, TextArea

    objects = [App, Screen, Widget, DOMNode, Footer, Static, DataTable, TextArea, Vertical]
    objects += [App(), Screen(), Widget(), Footer(), Static(), DataTable(), TextArea(), Vertical()]
    return {name for o in objects for name in dir(o) if name.startswith("_") and not name.startswith("__")}


def _textual_classes(path: Path) -> set[str]:
    """The names of the module's classes that are Textual objects (an App, a screen, a widget, ...)."""
    module = importlib.import_module(".".join(path.relative_to(TUI.parent).with_suffix("").parts))
    return {name for name, value in vars(module).items()
            if isinstance(value, type) and issubclass(value, MessagePump) and value.__module__ == module.__name__}


def _private_uses(path: Path, private: set[str]) -> list[str]:
    """Imports of a private Textual module; ``x._name`` where ``_name`` is a private name of Textual's classes or
    their instances; and, inside a Textual subclass, ``self._name`` or ``def _name`` of such a name (touching or
    overriding its base's private attribute)."""
    found = []
    textual_classes = _textual_classes(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    inside: dict[ast.AST, bool] = {}
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for node in ast.walk(cls):
            inside[node] = cls.name in textual_classes
    # `os._exit` is the standard library's, not Textual's private name of the same spelling.
    modules = {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
               for alias in node.names if not alias.name.startswith("textual")}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("textual"):
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            if any(part.startswith("_") for n in names for part in n.split(".")):
                found.append(f"{path.name}:{node.lineno} from {node.module} import …")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("textual") and any(p.startswith("_") for p in alias.name.split(".")):
                    found.append(f"{path.name}:{node.lineno} import {alias.name}")
        elif isinstance(node, ast.Attribute) and node.attr in private and not (
                isinstance(node.value, ast.Name) and node.value.id in modules):
            on_self = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not on_self or inside.get(node, False):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name in private \
                and inside.get(node, False):
            found.append(f"{path.name}:{node.lineno} def {node.name}")
    return found


def test_no_module_but_textual_compat_touches_textuals_private_names() -> None:
    private = _textual_private_names()
    # The guard sees what it guards: a class's private method and reactive, an instance's private attributes.
    assert {"_bindings_ready", "_refresh_notifications", "_notifications", "_bindings"} <= private
    found = [use for path in sorted(TUI.rglob("*.py")) if path.name != "textual_compat.py"
             for use in _private_uses(path, private)]
    assert found == [], f"private Textual names outside tui/textual_compat.py (move them there): {found}"
