"""The curated public API in engine/__init__.py: complete, sorted, lazy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parents[2]


def test_every_public_name_resolves_to_the_object_in_its_home_module() -> None:
    for name in engine.__all__:
        value = getattr(engine, name)
        home = sys.modules[engine._HOMES[name]]
        assert getattr(home, name) is value, name


def test_all_is_sorted_and_matches_the_table_of_homes() -> None:
    assert engine.__all__ == sorted(engine.__all__)
    assert set(engine.__all__) == set(engine._HOMES)


def test_an_unknown_name_raises_attribute_error() -> None:
    try:
        engine.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("engine.no_such_name resolved")


def test_import_engine_loads_neither_textual_nor_yaml_nor_httpx_nor_tiktoken() -> None:
    code = (
        "import sys, engine\n"
        "heavy = ('textual', 'yaml', 'httpx', 'tiktoken', 'sqlite3', 'rich')\n"
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in heavy)))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == ""


def test_the_readme_example_runs_against_a_fixture(tmp_path: Path) -> None:
    fixture = ROOT / "tests/fixtures/openclaw/42naodia__moltbot-config__f8c3e7a8-7dc1-43cc-8ce0-a9d268c29be1.jsonl"
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from engine import Config, discover_sessions, snapshot_session\n"
        "for source in discover_sessions([Path(sys.argv[1])]).sessions:\n"
        "    snap = snapshot_session(source, Config())\n"
        "    print(source.key, snap.window.tokens, snap.gauge.level)\n"
    )
    result = subprocess.run([sys.executable, "-c", code, str(fixture)], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    key, window, _level = result.stdout.split()
    assert key.startswith("agent:main:")  # the key from the sessions.json beside the transcript
    assert window == "32768"  # that store's contextTokens
