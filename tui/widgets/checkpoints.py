"""The Checkpoints tab: the history list, and for the highlighted checkpoint its diff and its rendered form.

The diff compares the highlighted checkpoint with the previous one, or with the checkpoint marked with
``space`` (mark two to compare any pair). Diffs are the engine's: :func:`engine.checkpoints.diff.diff_checkpoints`
(structured) and :func:`engine.checkpoints.diff.raw_diff` (unified YAML); the rendered block is
:func:`engine.checkpoints.render.render_checkpoint`. Files are read and rendered by the engine in a worker
(:func:`engine.queries.checkpoints.read_checkpoints`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Static, TabbedContent, TabPane

from engine import CheckpointDiff, StoredCheckpoint, diff_checkpoints, format_tokens, raw_diff
from tui.shown import shown, shown_text
from tui.widgets.movement import movement_keys

__all__ = ["CheckpointList", "CheckpointsView", "diff_content"]

EMPTY = ("No checkpoints yet. Press c to write one now; ctxscope also writes them on its own at the checkpoint "
         "line, before the agent compacts and after it did.")


NARROW_WIDTH = 100
"""Below this many terminal columns (the app's ``-narrow`` breakpoint) the list is 39 cells wide."""


def trigger_label(trigger: str, *, narrow: bool) -> str:
    """``trigger`` as the list shows it: whole, but for the one too long for the narrow list, whose last word
    the gauge's M marker already says (docs/checkpoints.md names every trigger)."""
    return "pre-compaction" if narrow and trigger == "pre-compaction-margin" else trigger


def _when(iso: str) -> str:
    return iso[5:16].replace("T", " ") if len(iso) >= 16 else iso


def _list_lines(name: str, added: Sequence[str], removed: Sequence[str]) -> list[Content]:
    lines = [Content.assemble(shown(name, "bold"), (f"  +{len(added)}", "$text-success"),
                              (f" −{len(removed)}", "$text-error"))]
    lines += [Content.assemble(("  + ", "bold $text-success"), shown(item)) for item in added]
    lines += [Content.assemble(("  − ", "bold $text-error"), shown(item)) for item in removed]
    return lines


def diff_content(diff: CheckpointDiff, why: str) -> Content:
    """The structured diff as lines: figures, changed texts, then each changed list with its items."""
    lines = [
        Content.assemble(shown(f"{diff.old_id} → {diff.new_id}", "bold $text-accent"), (f"  ({why})", "$text-muted")),
        Content.assemble(
            ("tokens ", "$text-muted"), f"{diff.token_delta:+,}",
            ("  utilization ", "$text-muted"), f"{diff.utilization_delta * 100:+.1f} pts",
            ("  compactions ", "$text-muted"), f"{diff.compaction_delta:+d}",
            ("  trigger ", "$text-muted"), shown(f"{diff.trigger.old} → {diff.trigger.new}"),
        ),
    ]
    for name, text in (("topic", diff.topic), ("status", diff.status)):
        if text.changed:
            lines.append(Content.assemble((f"{name} ", "$text-muted"), shown(text.old or "(empty)", "$text-error"),
                                          " → ", shown(text.new or "(empty)", "$text-success")))
    for name, change in diff.lists:
        if change.changed:
            lines += _list_lines(name, change.added, change.removed)
    if diff.is_empty:
        lines.append(Content.styled("Nothing changed but the figures above.", "$text-muted"))
    return Content("\n").join(lines)


def raw_content(text: str) -> Content:
    """A unified diff coloured by line kind."""
    if not text:
        return Content.styled("The two files are identical.", "$text-muted")
    styles = {"+": "$text-success", "-": "$text-error", "@": "$text-accent"}
    return Content("\n").join(
        shown(line, "bold" if line.startswith(("+++", "---")) else styles.get(line[:1], ""))
        for line in text.rstrip("\n").split("\n")
    )


class CheckpointList(DataTable[Text]):
    """The history, newest first; ``space`` marks a checkpoint to compare with."""

    # Enter selects nothing here (the highlighted row is what the panes show): no description keeps DataTable's
    # "Select" out of the help.
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "mark", "Mark", tooltip="Mark to compare (marked ones are kept)"),
        Binding("enter", "select_cursor", show=False),
        *movement_keys(up="cursor_up", down="cursor_down", first="scroll_top", last="scroll_bottom"),
    ]

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self._drawn_narrow = self.narrow
        # Written last: at 80 columns it is the one cut (the id and the trigger say which checkpoint it is).
        self.add_column(" ", key="mark")
        self.add_column("Id", key="id")
        self.add_column("Trigger", key="trigger")
        self.add_column(Text("Tokens", justify="right"), key="tokens")
        self.add_column("Written", key="when")

    @property
    def narrow(self) -> bool:
        """Whether the terminal is narrow: the list is then too narrow for the longest trigger."""
        return self.app.size.width < NARROW_WIDTH

    def on_resize(self) -> None:
        if self.narrow != self._drawn_narrow:
            self._drawn_narrow = self.narrow
            view = next(a for a in self.ancestors if isinstance(a, CheckpointsView))
            for item in view.stored:
                if item.checkpoint is not None and item.checkpoint_id in self.rows:
                    label = trigger_label(item.checkpoint.meta.trigger, narrow=self._drawn_narrow)
                    self.update_cell(item.checkpoint_id, "trigger", shown_text(label))

    def action_mark(self) -> None:
        """Mark or unmark the highlighted checkpoint for comparison."""
        view = next(a for a in self.ancestors if isinstance(a, CheckpointsView))
        view.toggle_mark()


class CheckpointsView(Horizontal):
    """Call :meth:`show` with the stored checkpoints; the cursor and the marks survive updates."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.stored: tuple[StoredCheckpoint, ...] = ()
        self.marks: list[str] = []
        """Checkpoint ids marked for comparison (at most two)."""
        self.pair: tuple[str, str] | None = None
        """The ``(older, newer)`` ids the diff panes show."""
        self._pins_read = False

    class MarksChanged(Message):
        """The user marked or unmarked a checkpoint: the marked ones are pinned against retention."""

        def __init__(self, marks: tuple[str, ...]) -> None:
            super().__init__()
            self.marks = marks

    def compose(self) -> ComposeResult:
        with Vertical(id="checkpoint-side"):
            yield CheckpointList(id="checkpoint-list")
            yield Static(Content.styled("space: mark to compare · mark two for any pair", "$text-muted"),
                         id="checkpoint-hint")
        with TabbedContent(id="checkpoint-tabs"):
            with TabPane("Diff", id="cp-diff"), VerticalScroll():
                yield Static(id="diff-text")
            with TabPane("Raw YAML diff", id="cp-raw"), VerticalScroll():
                yield Static(id="raw-text")
            with TabPane("Rendered", id="cp-rendered"), VerticalScroll():
                yield Static(id="rendered-text")

    @property
    def table(self) -> CheckpointList:
        return self.query_one(CheckpointList)

    @property
    def highlighted(self) -> StoredCheckpoint | None:
        table = self.table
        if not table.row_count:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate)[0].value
        return next((c for c in self.stored if c.checkpoint_id == key), None)

    def show(self, stored: Sequence[StoredCheckpoint], problem: str | None = None, *,
             pinned: Sequence[str] | None = None, removed: Sequence[str] = ()) -> None:
        """Replace the list (oldest first as read); keeps the highlighted checkpoint if it still exists.

        ``pinned``: the marks pinned on disk (taken as the marks the first time); ``removed``: what retention
        deleted, said under the list.
        """
        table = self.table
        current = self.highlighted
        self.stored = tuple(stored)
        ids = {c.checkpoint_id for c in self.stored}
        if pinned is not None and not self._pins_read:
            self._pins_read = True
            self.marks = sorted(pinned)[-2:]
        self.marks = [m for m in self.marks if m in ids]
        hint = "space: mark to compare (marked ones are kept) · mark two for any pair"
        if removed:
            listed = ", ".join(removed[-4:]) + (f" and {len(removed) - 4} earlier" if len(removed) > 4 else "")
            hint += f"\nretention removed {listed}"
        self.query_one("#checkpoint-hint", Static).update(Content.styled(hint, "$text-muted"))
        table.clear()
        for item in reversed(self.stored):
            table.add_row(*self._cells(item), key=item.checkpoint_id)
        if current is not None and current.checkpoint_id in ids:
            table.move_cursor(row=table.get_row_index(current.checkpoint_id), animate=False)
        elif self.stored:
            table.move_cursor(row=0, animate=False)
        if problem is not None:
            self._set_panes(shown(problem, "$text-error", one_line=False))
        elif not self.stored:
            self._set_panes(Content.styled(EMPTY, "$text-muted"))
        else:
            self.refresh_detail()

    def _cells(self, item: StoredCheckpoint) -> tuple[Text, ...]:
        mark = Text("●" if item.checkpoint_id in self.marks else " ")
        if item.checkpoint is None:
            return mark, shown_text(item.checkpoint_id), Text("unreadable"), Text(""), Text("")  # trigger, tokens, when
        meta = item.checkpoint.meta
        usage = meta.token_usage
        return (mark, shown_text(item.checkpoint_id), shown_text(trigger_label(meta.trigger, narrow=self.table.narrow)),
                Text(f"{format_tokens(usage.input_tokens)} {usage.utilization:.0%}", justify="right"),
                shown_text(_when(meta.created_at)))

    def _set_panes(self, text: Content) -> None:
        for pane in ("#diff-text", "#raw-text", "#rendered-text"):
            self.query_one(pane, Static).update(text)

    def toggle_mark(self) -> None:
        """Mark the highlighted checkpoint (a third mark replaces the oldest), or unmark it."""
        item = self.highlighted
        if item is None:
            return
        if item.checkpoint_id in self.marks:
            self.marks.remove(item.checkpoint_id)
        else:
            self.marks = [*self.marks, item.checkpoint_id][-2:]
        self.post_message(self.MarksChanged(tuple(self.marks)))
        for stored in self.stored:
            self.table.update_cell(stored.checkpoint_id, "mark",
                                   Text("●" if stored.checkpoint_id in self.marks else " "))
        self.refresh_detail()

    def show_latest_diff(self) -> None:
        """Highlight the newest checkpoint, clear the marks and show its diff against the previous one."""
        if self.marks:
            self.post_message(self.MarksChanged(()))
        self.marks = []
        self.show(self.stored)
        if self.stored:
            self.table.move_cursor(row=0, animate=False)
        self.query_one("#checkpoint-tabs", TabbedContent).active = "cp-diff"

    @on(DataTable.RowHighlighted, "#checkpoint-list")
    def _highlighted(self) -> None:
        self.refresh_detail()

    def _compared(self, item: StoredCheckpoint) -> tuple[StoredCheckpoint, StoredCheckpoint, str] | None:
        by_id = {c.checkpoint_id: c for c in self.stored}
        marked = [by_id[m] for m in self.marks if m in by_id]
        if len(marked) == 2:
            a, b = sorted(marked, key=lambda c: c.number)
            return a, b, "the two marked"
        if marked and marked[0] is not item:
            a, b = sorted((marked[0], item), key=lambda c: c.number)
            return a, b, "marked vs highlighted"
        older = [c for c in self.stored if c.number < item.number]
        return (older[-1], item, "against the previous one") if older else None

    def refresh_detail(self) -> None:
        """Redraw the diff, raw diff and rendered panes for the highlighted checkpoint and the marks."""
        item = self.highlighted
        if item is None:
            return
        rendered = item.rendered
        if item.problem is not None or rendered is None:
            self._set_panes(shown(f"{item.checkpoint_id}: {item.problem}", "$text-error", one_line=False))
            return
        omitted = f" · omitted {', '.join(rendered.omitted)}" if rendered.omitted else ""
        self.query_one("#rendered-text", Static).update(Content.assemble(
            shown(f"{item.checkpoint_id} as the agent reads it · {rendered.tokens:,} tokens{omitted}", "$text-muted"),
            "\n\n", shown(rendered.text, one_line=False),
        ))
        compared = self._compared(item)
        if compared is None:
            self.pair = None
            note = shown(f"{item.checkpoint_id} is the first checkpoint: nothing to compare with. "
                         "Mark another one with space.", "$text-muted")
            self.query_one("#diff-text", Static).update(note)
            self.query_one("#raw-text", Static).update(note)
            return
        old, new, why = compared
        self.pair = (old.checkpoint_id, new.checkpoint_id)
        if old.checkpoint is None or new.checkpoint is None:
            problem = shown(f"{old.checkpoint_id if old.checkpoint is None else new.checkpoint_id} "
                            "is unreadable", "$text-error")
            self.query_one("#diff-text", Static).update(problem)
            self.query_one("#raw-text", Static).update(problem)
            return
        self.query_one("#diff-text", Static).update(diff_content(diff_checkpoints(old.checkpoint, new.checkpoint),
                                                                 why))
        raw = raw_diff(old.text, new.text, a_name=f"{old.checkpoint_id}.yaml", b_name=f"{new.checkpoint_id}.yaml")
        self.query_one("#raw-text", Static).update(raw_content(raw))
