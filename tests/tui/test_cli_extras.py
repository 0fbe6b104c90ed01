"""httpx and prometheus-client are extras (``llm``, ``metrics``): the reading commands run without them, and a
feature that needs one says which extra to install. ``.[dev]`` pulls both, so the quick start stays one command.

Absence is simulated in a child process by setting the modules to ``None`` in ``sys.modules`` (``import`` then
raises ImportError, and the package cannot be found), which is what an install without the extra looks like to
ctxscope.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from engine.config.extras import EXTRAS, extra_installed, missing_extra
from tests.conftest import MAIN_SESSION, OPENCLAW

ROOT = Path(__file__).resolve().parents[2]
_WITHOUT_EXTRAS = """
import sys
for name in ("httpx", "prometheus_client"):
    sys.modules[name] = None
from tui.cli.main import main
code = main(sys.argv[1:])
loaded = [m for m in ("httpx", "prometheus_client") if sys.modules.get(m) is not None]
print("LOADED", loaded, file=sys.stderr)
sys.exit(code)
"""


def _ctxscope_without_extras(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CTXSCOPE_")}
    env |= {"XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state"),
            "XDG_CACHE_HOME": str(home / "cache"), "PI_CODING_AGENT_DIR": str(home / "pi")}
    return subprocess.run([sys.executable, "-c", _WITHOUT_EXTRAS, *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def _with_llm_config(home: Path) -> None:
    config = home / "config" / "ctxscope"
    config.mkdir(parents=True)
    (config / "config.yaml").write_text("llm:\n  kind: openai\n  base_url: https://api.openai.com/v1\n"
                                        "  model: gpt-4o-mini\n  api_key_env: CTXSCOPE_TEST_NO_KEY\n")


def test_dev_pulls_both_extras_and_the_base_install_neither() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    base = " ".join(project["dependencies"])
    assert "httpx" not in base and "prometheus" not in base
    extras = project["optional-dependencies"]
    assert any(r.startswith("httpx") for r in extras["llm"])
    assert any(r.startswith("prometheus-client") for r in extras["metrics"])
    assert "ctxscope[llm,metrics]" in extras["dev"]
    assert set(EXTRAS) == {"llm", "metrics"}


def test_without_extras_status_and_report_work_and_metrics_names_its_extra(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    shutil.copy(MAIN_SESSION, sessions / MAIN_SESSION.name)
    status = _ctxscope_without_extras(["status", str(sessions), "--json"], tmp_path)
    assert status.returncode == 0, status.stderr
    assert "LOADED []" in status.stderr
    report = _ctxscope_without_extras(["report", str(OPENCLAW), "--utc", "--json"], tmp_path)
    assert report.returncode == 0, report.stderr
    watch = _ctxscope_without_extras(["watch", str(sessions), "--metrics", "127.0.0.1:0"], tmp_path)
    assert watch.returncode == 2
    assert "pip install 'ctxscope[metrics]'" in watch.stderr and "Traceback" not in watch.stderr


@pytest.mark.parametrize(
    "args",
    [["compact", "{session}", "--llm", "--dry-run"], ["checkpoint", "{session}", "--enrich"]],
    ids=["compact-llm", "checkpoint-enrich"],
)
def test_an_llm_feature_without_the_llm_extra_names_it(tmp_path: Path, args: list[str]) -> None:
    session = tmp_path / MAIN_SESSION.name
    shutil.copy(MAIN_SESSION, session)
    _with_llm_config(tmp_path)
    done = _ctxscope_without_extras([a.format(session=session) for a in args], tmp_path)
    assert done.returncode == 2, done.stderr
    assert "pip install 'ctxscope[llm]'" in done.stderr and "Traceback" not in done.stderr


def test_the_check_sees_an_installed_extra() -> None:
    # This environment was installed with .[dev]: both extras are here.
    assert extra_installed("llm") and extra_installed("metrics")
    assert missing_extra("metrics") is None
