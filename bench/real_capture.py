"""Capture on whole real sessions: the items a checkpoint would carry (the driver ``bench/real.py`` runs).

It imports only engine names that the baseline commit has too (``read_transcript``, ``capture``,
``CapturedState``), so ``bench/real.py`` runs this same file against an export of the old code in a subprocess
(``python bench/real_capture.py PATH…`` with ``PYTHONPATH`` set to the export), and prints JSON: per session,
the decisions, constraints (the state's learnings) and open items, and the CPU seconds capture took.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def predict(path: Path) -> dict[str, Any]:
    """The captured items of the session at ``path`` after its last entry, and capture's CPU time."""
    from engine.capture.state import CapturedState, capture
    from engine.stores.transcript import read_transcript

    reader = read_transcript(path)
    entries = list(reader.entries)
    start = time.process_time()
    state = capture(CapturedState(), entries, reader.read_object)
    seconds = time.process_time() - start
    messages = sum(1 for e in entries if e.role in ("user", "assistant", "toolResult"))
    return {
        "decisions": [d.what for d in state.decisions],
        "constraints": list(state.learnings),
        "open_items": list(state.open_items),
        "seconds": seconds,
        "messages": messages,
    }


def predict_or_nothing(path: Path) -> dict[str, Any]:
    """:func:`predict`, or no items at all where the tree crashes on the session (the baseline does on some)."""
    try:
        return predict(path)
    except Exception as error:  # noqa: BLE001 -- a tree that crashes on a session captures nothing of it
        return {"decisions": [], "constraints": [], "open_items": [], "seconds": 0.0, "messages": 0,
                "error": repr(error)[:300]}


def main(argv: list[str]) -> int:
    print(json.dumps({path: predict_or_nothing(Path(path)) for path in argv}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
