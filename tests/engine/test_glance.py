"""The fast status path: one descriptor, a tail scan and a byte count, agreeing with the full index."""

from __future__ import annotations

from pathlib import Path

import pytest

import engine.session.glance
from engine.session.glance import glance_session
from engine.session.snapshot import snapshot_session
from engine.stores.source import SessionSource
from tests.conftest import ENDS_ON_COMPACTION, HEADERLESS, MAIN_SESSION, SUBAGENT, V1_LEGACY
from tests.engine._transcripts import assistant, compaction, user, write


def _source(path: Path) -> SessionSource:
    return SessionSource(key=path.name, path=path, format="pi-jsonl")


@pytest.mark.parametrize("path", [MAIN_SESSION, ENDS_ON_COMPACTION, HEADERLESS, SUBAGENT, V1_LEGACY])
def test_glance_agrees_with_the_full_index_on_real_sessions(path: Path) -> None:
    glance, snapshot = glance_session(_source(path)), snapshot_session(_source(path))
    assert glance.compactions_in_file == snapshot.compactions_in_file
    assert glance.quick.tokens == snapshot.tokens.tokens
    assert glance.quick.leaf_id == snapshot.to_status()["leaf_id"]
    assert (glance.version, glance.headerless) == (snapshot.version, snapshot.headerless)


def _with_compactions(path: Path, rounds: int, *, header: bool = True) -> Path:
    objs: list[dict[str, object]] = []
    parent: str | None = None
    for i in range(rounds):
        objs += [user(f"u{i}", parent, "x" * 50), assistant(f"a{i}", f"u{i}", "ok", 100 + i)]
        objs.append(compaction(f"c{i}", f"a{i}", f"u{i}"))
        parent = f"c{i}"
    return write(path, objs, header=header)


def test_count_matches_the_compactions_written(tmp_path: Path) -> None:
    path = _with_compactions(tmp_path / "s.jsonl", 7)
    assert glance_session(_source(path)).compactions_in_file == 7


def test_count_includes_a_compaction_on_the_first_line_of_a_headerless_file(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    objs = [compaction("c0", "root", "u1"), user("u1", "c0", "hi"), compaction("c1", "u1", "u1")]
    write(path, objs, header=False)
    glance = glance_session(_source(path))
    assert glance.headerless and glance.compactions_in_file == 2


def test_files_past_the_count_limit_report_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _with_compactions(tmp_path / "big.jsonl", 2)
    monkeypatch.setattr(engine.session.glance, "COUNT_LIMIT_BYTES", path.stat().st_size - 1)
    glance = glance_session(_source(path))
    assert glance.compactions_in_file is None and glance.compactions is None
    assert glance.quick.source == "unknown-after-compaction"
