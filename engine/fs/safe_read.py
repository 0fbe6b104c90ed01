"""Reading a small file whole without ever blocking on it: only a regular file, only up to a size.

``open()`` on a FIFO blocks until a writer appears, so a FIFO planted as ``sessions.json`` or ``config.yaml``
would hang every command; ``O_NONBLOCK`` plus an ``fstat`` check refuses it instead (``docs/hostile-input.md``).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["read_regular_bytes"]


def read_regular_bytes(path: Path, limit: int) -> bytes:
    """Up to ``limit`` bytes of the regular file ``path`` (never blocks on a FIFO or device).

    Raises:
        OSError: it cannot be opened, is not a regular file (``EINVAL``), or is larger than ``limit`` (``EFBIG``).
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        if st.st_size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit:,} bytes")
        chunks: list[bytes] = []
        size = 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise OSError(errno.EFBIG, f"larger than {limit:,} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)
