"""ctxscope takes a pi session's window, compaction line and keep-recent budget from pi's own configuration.

pi reads ``models.json`` (custom providers, ``contextWindow`` per model, ``modelOverrides``) and ``settings.json``
(``compaction.enabled/reserveTokens/keepRecentTokens``) from its agent dir (``PI_CODING_AGENT_DIR``, default
``~/.pi/agent``), with ``<cwd>/.pi/settings.json`` merged over the global file. pi_config.mjs asks pi itself.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.realagents.pi import ctxscope_side
from tests.realagents.pi.compare import TALLY
from tests.realagents.pi.edge_cases import PiFile, words
from tests.realagents.pi.pi_agent import PiInstall

pytestmark = pytest.mark.realagents

MODELS = {
    "providers": {
        "fake": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "fake-key",
            "models": [{"id": "fake-40k", "contextWindow": 40_000}, {"id": "fake-default"}],
        },
        "anthropic": {"modelOverrides": {"claude-sonnet-4-5": {"contextWindow": 150_000}}},
    }
}
CASES = {
    # name: (provider, model, project settings or None)
    "custom-40k-project-reserve": ("fake", "fake-40k", {"compaction": {"reserveTokens": 6_000}}),
    "custom-40k-global": ("fake", "fake-40k", None),
    "custom-default-window": ("fake", "fake-default", None),
    "builtin-override": ("anthropic", "claude-sonnet-4-5", None),
    "disabled-in-project": ("fake", "fake-40k", {"compaction": {"enabled": False}}),
}


def _session(directory: Path, provider: str, model: str, project: dict[str, Any] | None) -> Path:
    cwd = directory / "project"
    cwd.mkdir(parents=True)
    if project is not None:
        (cwd / ".pi").mkdir()
        (cwd / ".pi" / "settings.json").write_text(json.dumps(project))
    f = PiFile()
    f.lines[0]["cwd"] = str(cwd)  # type: ignore[index]
    f.user(words(200))
    a = f.assistant(words(50), 9_000)
    f.lines[-1]["message"] |= {"provider": provider, "model": model}  # type: ignore[operator]
    assert a
    sessions = directory / "sessions"
    sessions.mkdir()
    return f.write(sessions / "2026-01-01T00-00-00-000Z_0199aaaa-0000-7000-8000-000000000001.jsonl")


@pytest.mark.parametrize("case", list(CASES))
def test_window_line_and_budget_come_from_pi_config(
    pi: PiInstall, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    provider, model, project = CASES[case]
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "models.json").write_text(json.dumps(MODELS))
    (agent / "settings.json").write_text(
        json.dumps({"compaction": {"reserveTokens": 8_000, "keepRecentTokens": 4_000}})
    )
    path = _session(tmp_path, provider, model, project)
    theirs = pi.config(path.parent.parent / "project", provider, model, agent)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    code, out, err = ctxscope_side.call(["inspect", str(path), "--json"])
    assert code == 0, err
    view = json.loads(out)
    window = theirs["context_window"]
    settings = theirs["compaction"]
    line = window - settings["reserveTokens"] if settings["enabled"] else None
    got = (view["context_window"], view["compaction_threshold_tokens"], view["keep_recent_tokens"])
    TALLY.add("pi_config", got == (window, line, settings["keepRecentTokens"]))
    assert view["context_window"] == window
    assert view["compaction_threshold_tokens"] == line
    assert view["keep_recent_tokens"] == settings["keepRecentTokens"]
