"""One bounded HTTP POST to an LLM endpoint: an overall deadline, a cap on the answer's size, error text made safe.

httpx's ``timeout`` bounds each read, not the request: a server that sends one byte every half second never trips
it. Here the whole request — connect, headers, body — runs in a worker thread that gives up at
``timeout`` seconds, and the body is read in chunks, stopping at :data:`MAX_ANSWER_BYTES` (decoded). An error
body is an endpoint's text shown to the user: it is cut to :data:`ERROR_CHARS` and its control, escape and bidi
characters are written as visible escapes before it reaches any message (docs/compaction.md, Optional LLM
summaries).
"""

from __future__ import annotations

import contextlib
import threading
import time
import unicodedata
from dataclasses import dataclass

import httpx

__all__ = ["ERROR_CHARS", "MAX_ANSWER_BYTES", "Answer", "TransportError", "post_bounded", "visible_text"]

MAX_ANSWER_BYTES = 4 << 20
"""The largest answer body read (4 MiB decoded): a summary of a few thousand tokens is a few tens of KiB."""
ERROR_CHARS = 300
"""How much of an error body a message shows."""


class TransportError(Exception):
    """The request failed, passed its deadline or its size cap; the message names the URL, never a header."""


@dataclass(frozen=True)
class Answer:
    """A complete answer within the caps."""

    status: int
    body: bytes


def post_bounded(url: str, headers: dict[str, str], content: bytes, *, timeout: float) -> Answer:
    """POST ``content`` and read the whole answer within ``timeout`` seconds and :data:`MAX_ANSWER_BYTES`.

    Raises:
        TransportError: no complete answer in time, one too large, or a connection error.
    """
    deadline = time.monotonic() + timeout
    client = httpx.Client(timeout=timeout)
    outcome: list[Answer | TransportError] = []

    def run() -> None:
        try:
            outcome.append(_exchange(client, url, headers, content, deadline, timeout))
        except TransportError as exc:
            outcome.append(exc)
        except httpx.TimeoutException:
            outcome.append(TransportError(f"{url} did not answer within {timeout:g} s"))
        except httpx.HTTPError as exc:
            # The exception's text only: its chain holds the request, and with it the auth header.
            outcome.append(TransportError(f"request to {url} failed: {type(exc).__name__}: {visible_text(str(exc))}"))
        except Exception as exc:  # noqa: BLE001 - closing the client from the caller's thread lands here
            outcome.append(TransportError(f"request to {url} failed: {type(exc).__name__}"))

    worker = threading.Thread(target=run, name="llm-request", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        # Closing the pool makes the worker's next read fail (within one read timeout), so it does not linger.
        with contextlib.suppress(Exception):  # the worker may be using it; it ends on its own then
            client.close()
        raise TransportError(f"{url} did not answer within {timeout:g} s")
    client.close()
    result = outcome[0]
    if isinstance(result, TransportError):
        raise result
    return result


def _exchange(client: httpx.Client, url: str, headers: dict[str, str], content: bytes, deadline: float,
              timeout: float) -> Answer:
    with client.stream("POST", url, headers=headers, content=content) as response:
        chunks: list[bytes] = []
        size = 0
        for chunk in response.iter_bytes():
            size += len(chunk)
            if size > MAX_ANSWER_BYTES:
                raise TransportError(f"{url} answered more than {MAX_ANSWER_BYTES >> 20} MiB: not read further")
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise TransportError(f"{url} did not answer within {timeout:g} s")
        return Answer(response.status_code, b"".join(chunks))


_NEWLINES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def visible_text(text: str, limit: int = ERROR_CHARS) -> str:
    """``text`` cut to ``limit`` characters, on one line, with every control, format (bidi, zero-width) and
    private character written as an escape: an endpoint's words cannot move the cursor or reorder a line."""
    cut = text[:limit]
    out = []
    for char in cut:
        if char in _NEWLINES:
            out.append(_NEWLINES[char])
        elif unicodedata.category(char) in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp"):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
        else:
            out.append(char)
    return "".join(out) + ("…" if len(text) > limit else "")
