"""The ``metrics:`` config section: the idle age and the host label, validated with errors that name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config.loader import ConfigError, load_config
from engine.config.metrics_settings import DEFAULT_IDLE_AFTER_SECONDS, parse_duration


def _load(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return load_config(path, env={})


def test_the_default_idle_age_is_a_day_and_the_host_is_the_machines(tmp_path: Path) -> None:
    config = load_config(tmp_path / "missing.yaml", env={})
    assert config.metrics.idle_after_seconds == DEFAULT_IDLE_AFTER_SECONDS == 86_400
    assert config.metrics.host is None


@pytest.mark.parametrize(("text", "seconds"), [
    ("idle_after: 3600", 3600), ("idle_after: 90m", 5400), ("idle_after: 36h", 129_600), ("idle_after: 7d", 604_800),
    ("idle_after: '45s'", 45), ("idle_after: 1.5h", 5400),
])
def test_idle_after_reads_seconds_or_a_duration(tmp_path: Path, text: str, seconds: float) -> None:
    assert _load(tmp_path, f"metrics: {{{text}}}\n").metrics.idle_after_seconds == seconds


@pytest.mark.parametrize("value", ["0", "-5", "soon", "true", "[1]", "3w", ".inf"])
def test_a_bad_idle_after_is_an_error_naming_the_key(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match=r"metrics\.idle_after"):
        _load(tmp_path, f"metrics: {{idle_after: {value}}}\n")


def test_the_host_label_and_unknown_keys(tmp_path: Path) -> None:
    config = _load(tmp_path, "metrics: {host: ' runner-7 ', colour: red}\n")
    assert config.metrics.host == "runner-7"
    assert any("metrics.colour" in warning for warning in config.warnings)
    with pytest.raises(ConfigError, match=r"metrics\.host"):
        _load(tmp_path, "metrics: {host: ''}\n")
    with pytest.raises(ConfigError, match="metrics: expected a mapping"):
        _load(tmp_path, "metrics: 24h\n")


def test_parse_duration_rejects_infinity_and_names_what_it_parses() -> None:
    assert parse_duration("x", "2d") == 172_800
    with pytest.raises(ValueError, match=r"^x: expected a positive duration"):
        parse_duration("x", float("inf"))
