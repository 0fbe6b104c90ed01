"""The gauge of a huge transcript without reading its history: scan back from the end.

See docs/context-accounting.md, Reading from the tail.

Parents always precede children in a pi transcript, so following ``parentId`` from the leaf is a backward scan
in file order: a line is on the context path exactly when its id is the one we are waiting for. The scan stops
once three things are settled: ctxscope's figure (the first valid usage, or the latest compaction before any:
unknown), pi's estimate (its newest usage, zero included, or the kept messages of the latest compaction) and
whether pi calls it known; the last two come from the same functions as the full reader's. Lines that cannot
be on the path are skipped without being parsed (a byte search for the awaited id), so a 50 MB tool output costs
a ``memchr`` pass, not a JSON parse. The cost depends on the size of the tail after the last usage, not on the
length of the history.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import orjson

from engine.accounting.context import ContextMessage
from engine.accounting.measure import pi_estimate, pi_estimate_known, text_of
from engine.accounting.tokens import TokenCounter, get_counter
from engine.fs.byte_count import count_in_file
from engine.fs.tail import iter_lines_backward, reading
from engine.stores.entries import Entry, entry_from_object
from engine.stores.message_content import IMAGE_CHARS
from engine.stores.transcript import header_version, migrate_v2_role, read_header

__all__ = ["QuickGauge", "quick_context_tokens"]


@dataclass(frozen=True, slots=True)
class QuickGauge:
    """Context tokens found by scanning back from the end of a transcript."""

    tokens: int | None
    """``None`` when the latest compaction has no valid usage after it (or nothing was found)."""
    source: str
    leaf_id: str | None
    usage_entry_id: str | None
    trailing_messages: int
    model: str | None
    bytes_scanned: int
    """Bytes between the scan's stopping point and the end of the file."""
    agent_estimate: int | None = None
    """pi's estimate (:func:`engine.accounting.measure.pi_estimate`), also when pi calls it unknown."""
    leaf_timestamp: str | None = None
    method: str | None = None
    """Tokenizer used for the trailing messages; ``None`` when there were none (tiktoken is then never loaded)."""
    version: int = 3
    """pi format version from the header (3 for a header-less file)."""
    headerless: bool = False
    agent_estimate_known: bool = True
    """pi's ``getContextUsage`` has a figure (:func:`engine.accounting.measure.pi_estimate_known`)."""
    needs_full: bool = False
    """The tail cannot settle pi's figures (a v1 compaction): read the whole file instead."""
    provider: str | None = None
    cwd: str | None = None
    """The header's ``cwd`` (pi reads project settings from there)."""
    pi_loadable: bool = True
    """The file starts with a session header with an id, so pi loads it as is."""


class _Walk:
    """What the backward walk has seen, and whether each figure is decided (then the walk may stop)."""

    def __init__(self, compactions_possible: bool) -> None:
        self.after: list[Entry] = []
        """Entries after the latest compaction on the path, newest first."""
        self.kept: list[Entry] = []
        """Entries between that compaction and its first kept entry, newest first."""
        self.compaction: Entry | None = None
        self.kept_done = False
        self.pi_usage_seen = False
        self.compactions_possible = compactions_possible
        self.known_decided = not compactions_possible
        self.first_assistant_seen = False
        self.branch_empty = False
        """The leaf has no id: pi's getBranch() is empty, so getContextUsage sees no compaction (known)."""

    def see(self, entry: Entry) -> None:
        if self.compaction is None:
            if entry.type == "compaction":
                self.compaction = entry
                self.known_decided = True
                self.kept_done = entry.first_kept_entry_id is None
                return
            self.after.append(entry)
            if entry.has_pi_usage:
                self.pi_usage_seen = True
            if not self.first_assistant_seen and entry.role == "assistant" and entry.stop_reason not in (
                "aborted", "error"
            ):
                self.first_assistant_seen = True
                # Non-zero usage decides "known" whatever lies further back; zero needs to know about a compaction.
                if entry.usage is not None and (entry.usage.pi_context_tokens or 0) > 0:
                    self.known_decided = True
        elif not self.kept_done:
            self.kept.append(entry)
            if entry.id == self.compaction.first_kept_entry_id:
                self.kept_done = True

    @property
    def pi_decided(self) -> bool:
        return self.pi_usage_seen or (self.compaction is not None and self.kept_done)

    def estimate(self, *, root_reached: bool) -> tuple[int | None, bool]:
        """pi's estimate and its known flag, by the same functions as the full reader."""
        after = self.after[::-1]
        context = [e for e in after if e.in_context]
        compaction = self.compaction
        if compaction is not None and not self.pi_usage_seen:
            # pi keeps the entries from firstKeptEntryId on only when that entry is on the path.
            kept = [e for e in self.kept[::-1] if e.in_context] if self.kept_done and compaction.first_kept_entry_id \
                else []
            context = [compaction, *kept, *context]
        no_compaction = self.branch_empty or (compaction is None and (root_reached or not self.compactions_possible))
        return pi_estimate(context), pi_estimate_known(None if no_compaction else after)


def _scan(fd: int, version: int, compactions_possible: bool) -> QuickGauge:
    size = os.fstat(fd).st_size
    linear = version == 1  # v1 files have no ids: the file order is the path
    want: str | None = None
    leaf_id: str | None = None
    leaf_found = False
    leaf_time: str | None = None
    model: str | None = None
    provider: str | None = None
    trailing: list[tuple[Entry, dict[str, object]]] = []
    ours: tuple[int | None, str, str | None] | None = None
    """ctxscope's own figure once decided: (tokens or None, source, usage entry id)."""
    walk = _Walk(compactions_possible)
    root_reached = True
    offset = size
    for offset, raw in iter_lines_backward(fd, size):
        if want is not None and not linear and f'"{want}"'.encode() not in raw:
            continue
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(obj, dict) or obj.get("type") == "session":
            continue
        if version < 3:
            obj = migrate_v2_role(obj)
        entry = entry_from_object(obj, line_no=0, offset=offset, length=len(raw))
        if not linear:
            if not leaf_found:
                # pi's leaf is the last entry even without an id; its branch is then empty (docs/pi.md).
                leaf_found, leaf_id, leaf_time = True, entry.id, entry.timestamp
                walk.branch_empty = entry.id is None
                if entry.null_id:
                    break  # a null leaf id: pi's context is empty
            elif entry.id is None or entry.id != want:
                continue
            want = entry.parent_id
        elif not leaf_found:
            leaf_found, leaf_id, leaf_time = True, entry.id or f"v1-{_line_number(fd, offset)}", entry.timestamp
        is_model_source = entry.type == "model_change" or (entry.role == "assistant" and entry.provider != "openclaw")
        if model is None and is_model_source:
            model, provider = entry.model, entry.provider
        before_compaction = walk.compaction is None
        walk.see(entry)
        if linear and entry.type == "compaction":
            # v1 compactions name their kept entry by index: only the full reader resolves it.
            return QuickGauge(None, "unknown-after-compaction", leaf_id, None, 0, model, size - offset,
                              leaf_timestamp=leaf_time, needs_full=True, provider=provider)
        if ours is None and before_compaction:
            if entry.type == "compaction":
                ours = (None, "unknown-after-compaction", None)
            elif entry.has_valid_usage:
                assert entry.usage is not None
                ours = (entry.usage.context_tokens, "usage", entry.id)
            elif entry.sent:
                trailing.append((entry, obj))
        if ours is not None and walk.pi_decided and walk.known_decided:
            root_reached = False
            break
        if not linear and want is None:
            break
    if not leaf_found:
        return QuickGauge(0, "empty", None, None, 0, None, size, 0)
    estimate, known = walk.estimate(root_reached=root_reached)
    scanned = size - offset
    if ours is None:  # no usage and no compaction on the path: every message counted
        counter = get_counter()
        return QuickGauge(_count(trailing, counter), counter.method, leaf_id, None, len(trailing), model, scanned,
                          estimate, leaf_time, counter.method, agent_estimate_known=known, provider=provider)
    tokens, source, usage_id = ours
    if tokens is None or not trailing:
        return QuickGauge(tokens, source, leaf_id, usage_id, len(trailing), model, scanned, estimate, leaf_time,
                          agent_estimate_known=known, provider=provider)
    counter = get_counter()
    return QuickGauge(tokens + _count(trailing, counter), f"usage+{counter.method}", leaf_id, usage_id,
                      len(trailing), model, scanned, estimate, leaf_time, counter.method, agent_estimate_known=known,
                      provider=provider)


def _line_number(fd: int, offset: int) -> int:
    """The 1-based line at ``offset``: the id pi's v1 migration (and our full reader) gives an id-less entry.

    Only legacy v1 files pay for this newline count; their entries carry no ids to name the leaf by.
    """
    return count_in_file(fd, b"\n", offset) + 1


def _count(trailing: list[tuple[Entry, dict[str, object]]], counter: TokenCounter) -> int:
    total = 0
    for entry, obj in trailing:
        text, images = text_of(ContextMessage(entry, entry.role or "", 0), obj)
        total += counter.count(text) + images * (IMAGE_CHARS // 4)
    return total


_UNREAD: Any = object()


def quick_context_tokens(
    source: Path | int, *, compactions_possible: bool = True, header: dict[str, Any] | None = _UNREAD
) -> QuickGauge:
    """Measure the context of a transcript from its tail (tiktoken for the trailing messages).

    ``source`` is a path, or a descriptor open for reading (left open, its position untouched). With
    ``compactions_possible=False`` (the file holds no compaction line) pi's "known" needs no search for one.
    ``header`` is the file's header when the caller already read it (:func:`read_header`).

    Raises:
        OSError: the file cannot be opened or read.
    """
    with reading(source) as fd:
        if header is _UNREAD:
            header = read_header(fd)
        version = header_version(header)
        cwd = header.get("cwd") if header is not None else None
        return replace(_scan(fd, version, compactions_possible), version=version, headerless=header is None,
                       cwd=cwd if isinstance(cwd, str) else None,
                       pi_loadable=header is not None and isinstance(header.get("id"), str))
