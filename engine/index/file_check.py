"""The digest that says a file still starts with the bytes an index was built from (docs/index.md).

Its own module so that a usage report over Claude Code or Codex files, which stores this digest beside each
session's calls, does not import pi's transcript index to take it (docs/usage.md, Speed).
"""

from __future__ import annotations

import os
from _blake2 import blake2b  # hashlib.blake2b itself, without the OpenSSL load hashlib's import costs
from typing import Any

__all__ = ["bytes_check", "file_check"]

_CHECK_BYTES = 4096


def _blake(data: bytes) -> str:
    return blake2b(data, digest_size=16).hexdigest()


def file_check(fd: int, offset: int) -> list[Any]:
    """``[offset, BLAKE2b]`` of the first and the last bytes before ``offset`` (up to 4 KiB each, one read when the
    two overlap)."""
    if offset <= 2 * _CHECK_BYTES:
        return [offset, _blake(os.pread(fd, offset, 0))]
    head = os.pread(fd, _CHECK_BYTES, 0)
    return [offset, _blake(head + os.pread(fd, _CHECK_BYTES, offset - _CHECK_BYTES))]


def bytes_check(data: bytes, offset: int) -> list[Any]:
    """:func:`file_check` of a file whose first bytes, at least up to ``offset``, are ``data`` (already read:
    no second read of the file; tested equal)."""
    if offset <= 2 * _CHECK_BYTES:
        return [offset, _blake(data[:offset])]
    return [offset, _blake(data[:_CHECK_BYTES] + data[offset - _CHECK_BYTES:offset])]
