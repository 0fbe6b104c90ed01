"""A cold ``report`` imports only what it uses: the CSV writer, the zone database, the did-you-mean matcher and
the TOML parser only when asked for; never hashlib, whose import loads OpenSSL; and only the readers of the agents
whose files it reads (docs/usage.md, Speed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sim.agent_corpus import write_claude_code, write_codex, write_openclaw, write_pi

_PROBE = """
import json, sys
from tui.cli.entry import main
code = main(sys.argv[1:])
sys.stdout.flush()
print(json.dumps({"code": int(code), "loaded": sorted(sys.modules)}), file=sys.stderr)
"""
_ON_DEMAND = {"csv", "zoneinfo", "difflib", "tomllib", "hashlib"}
_NEVER = {
    "shutil",  # argparse's formatter asks it for the terminal's width, which only help and usage need
    "engine.accounting.gauge",  # the config holds the gauge's thresholds; a report draws no gauge
    "engine.accounting.windows",
    "textual", "rich", "watchfiles", "tiktoken", "engine.capture",
}
"""Modules no report imports, whatever it reads (docs/usage.md, Speed)."""

# Each agent's reader: pi and OpenClaw share the transcript reader and its index (one format, docs/formats.md).
_ENTRY_READERS = {"engine.stores.transcript", "engine.index.transcript_index", "engine.index.scanner"}
_READERS = {
    "pi": _ENTRY_READERS,
    "openclaw": _ENTRY_READERS,
    "claude-code": {"engine.agents.claude_code.reader", "engine.agents.claude_code.records"},
    "codex": {"engine.agents.codex.reader", "engine.agents.codex.records"},
}
_CORPORA = {  # agent: (write the corpus under a directory, the directory a report is given under it)
    "pi": (lambda home: list(write_pi(home, 2, session_bytes=20_000)), "sessions"),
    "openclaw": (lambda home: list(write_openclaw(home, 2, session_bytes=20_000)), "."),
    "claude-code": (lambda home: list(write_claude_code(home, 2, turns=2)), "projects"),
    "codex": (lambda home: list(write_codex(home, 2, turns=2)), "sessions"),
}


def _loaded(args: list[str], tmp_path: Path) -> tuple[set[str], str]:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("CTXSCOPE_")}, "CTXSCOPE_NO_INDEX": "1",
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    proc = subprocess.run([sys.executable, "-c", _PROBE, *args], env=env, cwd=tmp_path, capture_output=True,
                          text=True, check=True)
    probe = json.loads(proc.stderr.splitlines()[-1])
    assert probe["code"] == 0
    return set(probe["loaded"]), proc.stdout


@pytest.fixture
def rollouts(tmp_path: Path) -> Path:
    list(write_codex(tmp_path / "codex", 2, turns=2))
    return tmp_path / "codex" / "sessions"


def test_a_cold_report_imports_none_of_what_it_does_not_use(tmp_path: Path, rollouts: Path) -> None:
    loaded, out = _loaded(["report", str(rollouts), "--json", "--utc"], tmp_path)
    assert json.loads(out)["total"]["calls"] > 0
    assert "engine.usage.agent_usage" in loaded and not loaded & _ON_DEMAND
    assert not loaded & _NEVER, sorted(loaded & _NEVER)


@pytest.mark.parametrize(("option", "needs"), [(["--csv"], "csv"), (["--timezone", "Europe/Paris"], "zoneinfo")])
def test_what_an_option_needs_is_imported_when_asked(tmp_path: Path, rollouts: Path, option: list[str],
                                                     needs: str) -> None:
    loaded, out = _loaded(["report", str(rollouts), *option], tmp_path)
    assert needs in loaded and out.strip()


@pytest.mark.parametrize("agent", sorted(_CORPORA))
def test_a_report_over_one_agents_files_imports_no_other_agents_reader(tmp_path: Path, agent: str) -> None:
    write, root = _CORPORA[agent]
    write(tmp_path / "home")
    loaded, out = _loaded(["report", str(tmp_path / "home" / root), "--json", "--utc"], tmp_path)
    assert json.loads(out)["total"]["calls"] > 0
    assert _READERS[agent] <= loaded, "the agent's own reader read the files"
    others = set().union(*(modules for name, modules in _READERS.items() if name != agent)) - _READERS[agent]
    assert not loaded & others, f"a report over {agent} files imported {sorted(loaded & others)}"
    assert not loaded & _NEVER, sorted(loaded & _NEVER)
    if agent in ("pi", "openclaw"):  # the protocol's types are the Claude Code and Codex readers'
        assert "engine.agents.protocol" not in loaded
    else:  # pi's entry parser: the records a report sums have a module of their own
        assert "engine.stores.entries" not in loaded
