"""pi and OpenClaw behind the agent protocol (docs/agents.md): the registry knows every format, discovery walks
every agent's roots, and windows, compaction lines, reserve floors and controllers come from the agent's folder."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import get_args

import pytest

from engine.agents import registry
from engine.agents.discovery import default_roots
from engine.agents.openclaw import ADAPTER as OPENCLAW
from engine.agents.pi import ADAPTER as PI
from engine.agents.protocol import CompactionRule, WindowHints
from engine.compaction.choice import choose_controller
from engine.config.loader import Config
from engine.session.agent_limits import agent_limits
from engine.stores.source import SessionFormat, SessionSource


def test_every_session_format_belongs_to_exactly_one_agent() -> None:
    for fmt in get_args(SessionFormat):
        owners = [a.name for a in registry.ADAPTERS if fmt in a.formats]
        assert len(owners) == 1, (fmt, owners)
        agent = registry.agent_of(fmt)
        assert agent is not None and agent.name == owners[0]
    assert registry.agent_of("pi-jsonl") is PI
    assert registry.agent_of("openclaw-sqlite") is OPENCLAW
    assert registry.entry_agent("openclaw-jsonl") is OPENCLAW
    # Claude Code and Codex are read by their own readers, not parsed as pi entries.
    assert registry.entry_agent("codex-jsonl") is None
    assert registry.adapter_named("pi-jsonl") is None


def test_default_roots_are_the_agents_roots_in_registry_order(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "OPENCLAW_STATE_DIR": str(tmp_path / "oc"),
           "PI_CODING_AGENT_DIR": str(tmp_path / "pi"), "CLAUDE_CONFIG_DIR": str(tmp_path / "cc"),
           "CODEX_HOME": str(tmp_path / "cx")}
    roots = default_roots(env)
    assert roots[:4] == (tmp_path / "oc", tmp_path / ".openclaw", tmp_path / ".clawdbot", tmp_path / "pi" / "sessions")
    assert roots == tuple(r for a in registry.ADAPTERS for r in a.default_roots(env))
    assert PI.default_roots({"HOME": str(tmp_path)}) == (tmp_path / ".pi" / "agent" / "sessions",)
    assert OPENCLAW.default_roots({"HOME": str(tmp_path)}) == (tmp_path / ".openclaw", tmp_path / ".clawdbot")


def test_pi_window_and_rule_come_from_its_own_files(tmp_path: Path) -> None:
    agent_dir = tmp_path / "pi"
    agent_dir.mkdir()
    (agent_dir / "models.json").write_text(json.dumps(
        {"providers": {"acme": {"models": [{"id": "m1", "contextWindow": 50_000}]}}}))
    (agent_dir / "settings.json").write_text(json.dumps({"compaction": {"reserveTokens": 4_000}}))
    env = {"HOME": str(tmp_path), "PI_CODING_AGENT_DIR": str(agent_dir)}
    source = SessionSource(key="s", path=tmp_path / "s.jsonl", format="pi-jsonl")
    hints = PI.window_hints(source, "acme", "m1", env)
    assert hints.agent_window is not None and hints.agent_window[0] == 50_000
    assert hints.configured is None
    rule = PI.compaction_rule(str(tmp_path), env)
    assert rule.reserve_tokens == 4_000 and "settings.json" in rule.reserve_source
    limits = agent_limits(source, Config(), model="m1", provider="acme", cwd=str(tmp_path), env=env)
    assert (limits.window.tokens, limits.reserve_tokens, limits.reserve_floor) == (50_000, 4_000, 0)


def test_openclaw_window_comes_from_openclaw_json_and_keeps_its_floor(tmp_path: Path) -> None:
    (tmp_path / "openclaw.json").write_text(json.dumps(
        {"models": {"providers": {"acme": {"models": [{"id": "m1", "contextWindow": 64_000}]}}}}))
    source = SessionSource(key="agent:main:x", path=tmp_path / "x.jsonl", format="openclaw-jsonl",
                           state_dir=tmp_path)
    assert OPENCLAW.window_hints(source, "acme", "m1", {}) == WindowHints(configured=64_000)
    assert OPENCLAW.compaction_rule(None, {}) is None
    limits = agent_limits(source, Config(), model="m1", provider="acme", cwd=None, env={})
    assert limits.window.tokens == 64_000 and limits.window.source == "openclaw.json"
    assert limits.reserve_floor == OPENCLAW.reserve_floor == 20_000
    assert limits.line_source == "OpenClaw reserve floor"


def test_reserve_floor_is_the_agents(tmp_path: Path) -> None:
    config = Config()
    assert [config.reserve_floor_for(f) for f in ("openclaw-jsonl", "openclaw-sqlite", "pi-jsonl",
                                                  "claude-code-jsonl", "codex-jsonl")] == [20_000, 20_000, 0, 0, 0]


def test_controller_is_the_agents(tmp_path: Path) -> None:
    for fmt, controller in (("pi-jsonl", "jsonl"), ("openclaw-jsonl", "jsonl"), ("claude-code-jsonl", "claude-code"),
                            ("codex-jsonl", "codex")):
        source = SessionSource(key="k", path=tmp_path / "k.jsonl", format=fmt)  # type: ignore[arg-type]
        assert choose_controller(source) == (controller, None)


class _Rule:
    enabled = True
    reserve_tokens = 1_234
    keep_recent_tokens = 5_678
    enabled_source = reserve_source = keep_recent_source = "/etc/newagent.json"


class _NewAgent:
    """An agent added as a folder: the generic code must ask it, not test for its format."""

    name = "newagent"
    title = "NewAgent"
    formats: tuple[str, ...] = ("pi-jsonl",)
    controller = "jsonl"
    reserve_floor = 777

    def default_roots(self, env: Mapping[str, str]) -> tuple[Path, ...]:
        return (Path(env["HOME"]) / ".newagent",)

    def window_hints(self, source: SessionSource, provider: str | None, model: str | None,
                     env: Mapping[str, str] | None) -> WindowHints:
        return WindowHints(agent_window=(42_000, "newagent models"))

    def compaction_rule(self, cwd: str | None, env: Mapping[str, str] | None) -> CompactionRule | None:
        return _Rule()


def test_generic_code_asks_the_registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    new = _NewAgent()
    monkeypatch.setattr(registry, "ENTRY_AGENTS", (new,))
    monkeypatch.setattr(registry, "ADAPTERS", (new, *registry.READERS))
    source = SessionSource(key="s", path=tmp_path / "s.jsonl", format="pi-jsonl")
    limits = agent_limits(source, Config(), model="m", provider="p", cwd=None, env={"HOME": str(tmp_path)})
    assert (limits.window.tokens, limits.window.source) == (42_000, "newagent models")
    assert (limits.reserve_tokens, limits.keep_recent_tokens, limits.reserve_floor) == (1_234, 5_678, 777)
    assert default_roots({"HOME": str(tmp_path)})[0] == tmp_path / ".newagent"
