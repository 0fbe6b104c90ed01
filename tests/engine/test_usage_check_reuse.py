"""A report keeps, with each Claude Code or Codex file's usage, a digest of the bytes it read (to resume at the
next append); computed from the bytes the reader already holds, it is the digest a second read gives
(docs/usage.md, Speed; docs/index.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engine.agents.claude_code import reader as claude_reader
from engine.agents.codex import reader as codex_reader
from engine.agents.discovery import discover_sessions
from engine.index.cache import IndexCache
from engine.index.transcript_index import bytes_check, file_check
from engine.usage import agent_usage
from engine.usage.collect import collect_usage
from sim.agent_corpus import write_claude_code, write_codex


def test_the_digest_of_bytes_held_equals_the_digest_of_the_file(tmp_path: Path) -> None:
    data = bytes(range(256)) * 100
    path = tmp_path / "f"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        for offset in (0, 1, 4095, 4096, 8191, 8192, 8193, 12_000, len(data)):
            assert bytes_check(data, offset) == file_check(fd, offset), offset
    finally:
        os.close(fd)


@pytest.mark.parametrize("write", [write_claude_code, write_codex])
def test_a_cold_report_digests_what_it_read_and_resumes_from_it(write, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    files = list(write(tmp_path / "home", 2, turns=3))
    root = tmp_path / "home"
    calls: list[Path] = []
    real = agent_usage._check

    def counted(path, st, offset):  # type: ignore[no-untyped-def]
        calls.append(path)
        return real(path, st, offset)

    monkeypatch.setattr(agent_usage, "_check", counted)
    collect_usage(discover_sessions([root]), IndexCache(tmp_path / "cache"))
    assert calls == []  # no file opened a second time for its digest
    with files[0].open("ab") as out:  # an append is read from where the cold pass stopped, not from the start
        out.write(files[0].read_bytes().splitlines(keepends=True)[-1])
    resumed: list[object] = []
    if write is write_codex:
        real_resume = codex_reader.CodexReader.resume
        monkeypatch.setattr(codex_reader.CodexReader, "resume",
                            classmethod(lambda cls, p, s: resumed.append(p) or real_resume(p, s)))
    else:
        real_quick = claude_reader.read_usage

        def quick(path, since=None):  # type: ignore[no-untyped-def]
            if since is not None:
                resumed.append(path)
            return real_quick(path, since)

        # The reader's module: agent_usage imports each agent's reader when it reads a file of that agent.
        monkeypatch.setattr(claude_reader, "read_usage", quick)
    collect_usage(discover_sessions([root]), IndexCache(tmp_path / "cache"))
    assert resumed == [files[0]]
