"""engine/ never imports Textual, Rich, watchfiles, the TUI or the simulator (docs/architecture.md)."""

from __future__ import annotations

import os
import pkgutil
import shutil
import subprocess
import sys
from pathlib import Path

import engine
from tests.conftest import SUBAGENT

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("textual", "rich", "watchfiles", "tui", "sim")


def test_importing_every_engine_module_loads_no_ui_package() -> None:
    modules = [m.name for m in pkgutil.walk_packages(engine.__path__, "engine.") if not m.name.endswith("__main__")]
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert result.stdout.strip() == ""
    assert len(modules) > 60  # every module of every sub-package, not only the top level


def test_lint_bans_ui_imports_in_engine(tmp_path: Path) -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))
    assert ruff is not None, "ruff is a dev dependency"
    probe = ROOT / "engine" / "_lint_probe_tmp.py"
    probe.write_text("import textual\nfrom rich import print\n")
    try:
        result = subprocess.run(
            [ruff, "check", "--no-cache", "--select", "TID251", str(probe)], capture_output=True, text=True, cwd=ROOT
        )
    finally:
        probe.unlink()
    assert result.returncode == 1
    assert "must not import Textual" in result.stdout and "must not import Rich" in result.stdout


def test_the_command_line_loads_textual_only_for_the_tui_and_the_demo(tmp_path: Path) -> None:
    # `watch`, `status`, `report` and the rest must run without Textual; only the `tui`/`demo` handlers import it.
    # Run, not only imported: `watch` used to pull Textual in at run time through tui.follow.
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    shutil.copy(SUBAGENT, sessions / SUBAGENT.name)
    code = (
        "import sys\n"
        "from tui.cli.main import main\n"
        f"for argv in (['status', {str(sessions)!r}], ['report', {str(sessions)!r}],\n"
        f"             ['--state-dir', {str(tmp_path / 'state')!r}, 'watch', {str(sessions)!r}, '--once']):\n"
        "    assert main(argv) == 0, argv\n"
        "print('LOADED:' + ','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))))\n"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "LOADED:", result.stdout[-300:]
