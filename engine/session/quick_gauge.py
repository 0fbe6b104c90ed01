"""The gauge of a huge transcript without reading its history: scan back from the end.

See docs/context-accounting.md, Reading from the tail.

Parents always precede children in a pi transcript, so following ``parentId`` from the leaf is a backward scan
in file order: a line is on the context path exactly when its id is the one we are waiting for. The scan stops
at the first valid usage (authoritative figure + the messages after it) or at the latest compaction before any
usage (unknown). Lines that cannot be on the path are skipped without being parsed (a byte search for the
awaited id), so a 50 MB tool output costs a ``memchr`` pass, not a JSON parse. The cost depends on the size of
the tail after the last usage, not on the length of the history.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import orjson

from engine.accounting.context import ContextMessage
from engine.accounting.measure import text_of
from engine.accounting.tokens import TokenCounter, get_counter
from engine.fs.byte_count import count_in_file
from engine.fs.tail import iter_lines_backward, reading
from engine.stores.entries import IMAGE_CHARS, Entry, entry_from_object
from engine.stores.transcript import header_version, read_header

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
    """pi's estimate (usage + ``ceil(chars/4)`` of the trailing messages); ``None`` when unknown."""
    leaf_timestamp: str | None = None
    method: str | None = None
    """Tokenizer used for the trailing messages; ``None`` when there were none (tiktoken is then never loaded)."""
    version: int = 3
    """pi format version from the header (3 for a header-less file)."""
    headerless: bool = False


def _scan(fd: int, version: int) -> QuickGauge:
    size = os.fstat(fd).st_size
    linear = version == 1  # v1 files have no ids: the file order is the path
    want: str | None = None
    leaf_id: str | None = None
    leaf_time: str | None = None
    model: str | None = None
    trailing: list[tuple[Entry, dict[str, object]]] = []
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
        entry = entry_from_object(obj, line_no=0, offset=offset, length=len(raw))
        if not linear:
            if entry.id is None:
                continue
            if want is None:
                leaf_id, leaf_time = entry.id, entry.timestamp
            elif entry.id != want:
                continue
            want = entry.parent_id
        elif leaf_id is None:
            leaf_id, leaf_time = entry.id or f"v1-{_line_number(fd, offset)}", entry.timestamp
        is_model_source = entry.type == "model_change" or (entry.role == "assistant" and entry.provider != "openclaw")
        if model is None and is_model_source:
            model = entry.model
        if entry.type == "compaction":
            return QuickGauge(
                None, "unknown-after-compaction", leaf_id, None, len(trailing), model, size - offset, None, leaf_time
            )
        if entry.has_valid_usage:
            assert entry.usage is not None
            usage = entry.usage.context_tokens
            estimate = usage + sum(e.pi_tokens for e, _ in trailing)
            if not trailing:
                return QuickGauge(usage, "usage", leaf_id, entry.id, 0, model, size - offset, estimate, leaf_time)
            counter = get_counter()
            return QuickGauge(
                usage + _count(trailing, counter),
                f"usage+{counter.method}",
                leaf_id,
                entry.id,
                len(trailing),
                model,
                size - offset,
                estimate,
                leaf_time,
                counter.method,
            )
        if entry.in_context:
            trailing.append((entry, obj))
        if not linear and want is None:
            break
    if leaf_id is None:
        return QuickGauge(0, "empty", None, None, 0, None, size, 0)
    counter = get_counter()
    estimate = sum(e.pi_tokens for e, _ in trailing)
    return QuickGauge(
        _count(trailing, counter),
        counter.method,
        leaf_id,
        None,
        len(trailing),
        model,
        size - offset,
        estimate,
        leaf_time,
        counter.method,
    )


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


def quick_context_tokens(source: Path | int) -> QuickGauge:
    """Measure the context of a transcript from its tail (tiktoken for the trailing messages).

    ``source`` is a path, or a descriptor open for reading (left open, its position untouched).

    Raises:
        OSError: the file cannot be opened or read.
    """
    with reading(source) as fd:
        header = read_header(fd)
        version = header_version(header)
        return replace(_scan(fd, version), version=version, headerless=header is None)
