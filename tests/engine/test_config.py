"""The config file and ``CTXSCOPE_*`` overrides: values, warnings, errors that name the key, and start-up cost."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.config.loader import Config, ConfigError, load_config
from engine.sidecar import ContextManager


def _config(tmp_path: Path, text: str, env: dict[str, str] | None = None) -> Config:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return load_config(path, env=env or {})


def test_no_file_gives_the_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path / "missing.yaml", env={})
    assert config.keep_recent_tokens == 20_000 and config.retention == 5
    assert config.auto_checkpoints and config.llm is None and config.warnings == ()


def test_values_are_read_and_unknown_keys_are_reported_not_fatal(tmp_path: Path) -> None:
    config = _config(tmp_path, "keep_recent_tokens: 12000\nretention: 3\nauto_checkpoints: false\n"
                               "auto_checkpoint_idle: 90m\n"
                               "context_windows: {'*': 100000}\nthresholds: {gauge: 0.6, colour: red}\nfancy: 1\n")
    assert (config.keep_recent_tokens, config.retention, config.auto_checkpoints) == (12_000, 3, False)
    assert config.auto_checkpoint_idle == 5400.0 and Config().auto_checkpoint_idle == 3600.0
    assert config.context_windows == {"*": 100_000} and config.thresholds.gauge == 0.6
    assert any("thresholds.colour" in w for w in config.warnings) and any("fancy" in w for w in config.warnings)


@pytest.mark.parametrize(("text", "named"), [
    ("auto_checkpoints: nope\n", "auto_checkpoints"),
    ("auto_checkpoint_idle: -5\n", "auto_checkpoint_idle"),
    ("retention: 2.5\n", "retention"),
    ("thresholds: [0.7]\n", "thresholds"),
    ("llm: {kind: openai}\n", "llm.base_url"),
    ("keep_recent_tokens: [\n", "cannot be read as YAML"),
])
def test_bad_values_are_errors_that_name_the_key(tmp_path: Path, text: str, named: str) -> None:
    with pytest.raises(ConfigError, match=named.replace(".", r"\.")):
        _config(tmp_path, text)


def test_environment_overrides_the_file(tmp_path: Path) -> None:
    config = _config(tmp_path, "keep_recent_tokens: 12000\n", env={"CTXSCOPE_KEEP_RECENT_TOKENS": "8000"})
    assert config.keep_recent_tokens == 8000
    with pytest.raises(ConfigError, match="CTXSCOPE_RESERVE_FLOOR"):
        _config(tmp_path, "", env={"CTXSCOPE_RESERVE_FLOOR": "lots"})


def test_the_sidecar_follows_auto_checkpoints_unless_told(tmp_path: Path) -> None:
    off = _config(tmp_path, "auto_checkpoints: false\n")
    assert not ContextManager(off).auto_checkpoints
    assert ContextManager(Config()).auto_checkpoints
    assert not ContextManager(Config(), auto_checkpoints=False).auto_checkpoints


def test_yaml_is_not_imported_without_a_config_file(tmp_path: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from engine.config.loader import load_config; "
        f"load_config(Path({str(tmp_path / 'missing.yaml')!r}), env={{}}); print('yaml' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
