"""ctxscope's engine: read agent sessions, measure their context, checkpoint and compact them — no UI.

The names below are the public API, among them the queries behind every view (``engine.queries``: what the TUI
and the command line show, one function per value). They load lazily (PEP 562), so ``import engine`` stays cheap:
PyYAML, httpx, sqlite3 and tiktoken are imported only when a name that needs them is first used. Everything else
is internal and may move; the layers are described in ``docs/architecture.md``.

Example::

    from engine import Config, discover_sessions, snapshot_session

    for source in discover_sessions().sessions:
        snap = snapshot_session(source, Config())
        print(source.key, snap.tokens.tokens, snap.window.tokens, snap.gauge.level)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__all__ = [
    "AGENT_FORMATS",
    "AppendError",
    "AppendRefusedError",
    "CapturedState",
    "Checkpoint",
    "CheckpointDiff",
    "CompactionError",
    "CompactionPlan",
    "CompactionRefusedError",
    "CompactionResult",
    "Config",
    "ConfigError",
    "Consumer",
    "ContextManager",
    "ContextRow",
    "ContextView",
    "ContextWindow",
    "DecisionsDigest",
    "DegradationAssessment",
    "Discovery",
    "GaugeLevel",
    "GaugeReading",
    "GroupBy",
    "HistoryItem",
    "IndexCache",
    "InjectRefusedError",
    "KeepRecent",
    "LLMError",
    "LockError",
    "LockHeldError",
    "LockInfo",
    "Marker",
    "MessageText",
    "NotCompactedError",
    "NotedItem",
    "PlotColumn",
    "ProtectedBudget",
    "Refreshed",
    "Segment",
    "SessionCost",
    "SessionFollower",
    "SessionInsight",
    "SessionMetrics",
    "SessionNotFoundError",
    "SessionReader",
    "SessionSnapshot",
    "SessionSource",
    "SessionTracker",
    "SessionUsage",
    "SidecarEvent",
    "StoredCheckpoint",
    "TailMessage",
    "Thresholds",
    "Timeline",
    "TranscriptError",
    "UnsafePathError",
    "UsageReport",
    "UsageTotals",
    "agent_compaction_problem",
    "agent_estimate_text",
    "agent_glance",
    "aggregate_usage",
    "apply_compaction",
    "apply_inject",
    "assess_degradation",
    "audit_history",
    "build_checkpoint",
    "build_context",
    "catalog_info",
    "collect_usage",
    "compaction_count",
    "context_cut",
    "count_tokens",
    "default_cache",
    "default_host",
    "default_layer",
    "diff_checkpoints",
    "discover_sessions",
    "find_session",
    "format_tokens",
    "glance_session",
    "index_transcript",
    "inspect_lock",
    "keep_recent_budget",
    "latest_checkpoint",
    "layer_budgets",
    "list_checkpoints",
    "load_config",
    "measure_rows",
    "message_text",
    "missing_extra",
    "money",
    "open_reader",
    "own_compactions",
    "percent",
    "pi_branch",
    "pins_of",
    "plan_compaction",
    "plan_inject",
    "plot_columns",
    "protected_budget",
    "raw_diff",
    "read_checkpoint",
    "read_checkpoints",
    "read_decisions",
    "read_gauge",
    "read_message",
    "read_outline",
    "read_tail",
    "read_top_consumers",
    "record_action",
    "redact_secrets",
    "removed_by_retention",
    "render_checkpoint",
    "resolve_context_window",
    "resolve_state_dir",
    "session_cost",
    "session_metrics",
    "set_pins",
    "snapshot_session",
    "strip_controls",
    "terminal_safe",
    "top_consumers",
    "utilization_timeline",
    "with_edited_summary",
    "write_checkpoint",
]

_HOMES: dict[str, str] = {
    "AGENT_FORMATS": "engine.stores.source",
    "AppendError": "engine.fs.jsonl_append",
    "AppendRefusedError": "engine.fs.jsonl_append",
    "CapturedState": "engine.capture.state",
    "Checkpoint": "engine.checkpoints.model",
    "CheckpointDiff": "engine.checkpoints.diff",
    "CompactionError": "engine.compaction.controllers",
    "CompactionPlan": "engine.compaction.plan",
    "CompactionRefusedError": "engine.compaction.controllers",
    "CompactionResult": "engine.compaction.controllers",
    "Config": "engine.config.loader",
    "ConfigError": "engine.config.loader",
    "Consumer": "engine.accounting.consumers",
    "ContextManager": "engine.sidecar",
    "ContextRow": "engine.queries.context_rows",
    "ContextView": "engine.accounting.context",
    "ContextWindow": "engine.accounting.windows",
    "DecisionsDigest": "engine.queries.decisions",
    "DegradationAssessment": "engine.compaction.degradation",
    "Discovery": "engine.stores.source",
    "GaugeLevel": "engine.accounting.gauge",
    "GaugeReading": "engine.accounting.gauge",
    "GroupBy": "engine.usage.model",
    "HistoryItem": "engine.queries.audit",
    "IndexCache": "engine.index.cache",
    "InjectRefusedError": "engine.checkpoints.inject",
    "KeepRecent": "engine.queries.context_rows",
    "LLMError": "engine.llm.client",
    "LockError": "engine.fs.lock_info",
    "LockHeldError": "engine.fs.session_lock",
    "LockInfo": "engine.fs.session_lock",
    "Marker": "engine.accounting.gauge",
    "MessageText": "engine.queries.message",
    "NotCompactedError": "engine.compaction.controllers",
    "NotedItem": "engine.queries.decisions",
    "PlotColumn": "engine.accounting.timeline",
    "ProtectedBudget": "engine.compaction.budget",
    "Refreshed": "engine.live.tracker",
    "Segment": "engine.session.branches",
    "SessionCost": "engine.session.cost",
    "SessionFollower": "engine.session.snapshot",
    "SessionInsight": "engine.live.insight",
    "SessionMetrics": "engine.live.metrics",
    "SessionNotFoundError": "engine.agents.discovery",
    "SessionReader": "engine.agents.session_reader",
    "SessionSnapshot": "engine.session.snapshot",
    "SessionSource": "engine.stores.source",
    "SessionTracker": "engine.live.tracker",
    "SessionUsage": "engine.usage.model",
    "SidecarEvent": "engine.sidecar",
    "StoredCheckpoint": "engine.queries.checkpoints",
    "TailMessage": "engine.queries.transcript",
    "Thresholds": "engine.accounting.thresholds",
    "Timeline": "engine.accounting.timeline",
    "TranscriptError": "engine.stores.transcript_error",
    "UnsafePathError": "engine.fs.safe_path",
    "UsageReport": "engine.usage.model",
    "UsageTotals": "engine.usage.model",
    "agent_compaction_problem": "engine.compaction.agent_guard",
    "agent_estimate_text": "engine.accounting.measure",
    "agent_glance": "engine.session.agent_glance",
    "aggregate_usage": "engine.usage.aggregate",
    "apply_compaction": "engine.compaction.controllers",
    "apply_inject": "engine.checkpoints.inject",
    "assess_degradation": "engine.compaction.degradation",
    "audit_history": "engine.queries.audit",
    "build_checkpoint": "engine.checkpoints.builder",
    "build_context": "engine.accounting.context",
    "catalog_info": "engine.catalog.model_catalog",
    "collect_usage": "engine.usage.collect",
    "compaction_count": "engine.session.compaction_count",
    "context_cut": "engine.queries.context_rows",
    "count_tokens": "engine.accounting.tokens",
    "default_cache": "engine.index.cache",
    "default_host": "engine.live.metrics",
    "default_layer": "engine.compaction.choice",
    "diff_checkpoints": "engine.checkpoints.diff",
    "discover_sessions": "engine.agents.discovery",
    "find_session": "engine.agents.discovery",
    "format_tokens": "engine.accounting.gauge",
    "glance_session": "engine.session.glance",
    "index_transcript": "engine.index.transcript_index",
    "inspect_lock": "engine.fs.session_lock",
    "keep_recent_budget": "engine.queries.context_rows",
    "latest_checkpoint": "engine.checkpoints.store",
    "layer_budgets": "engine.compaction.budget",
    "list_checkpoints": "engine.checkpoints.store",
    "load_config": "engine.config.loader",
    "measure_rows": "engine.queries.context_rows",
    "message_text": "engine.queries.message",
    "missing_extra": "engine.config.extras",
    "money": "engine.accounting.rounding",
    "open_reader": "engine.agents.session_reader",
    "own_compactions": "engine.session.compaction_count",
    "percent": "engine.accounting.rounding",
    "pi_branch": "engine.accounting.context",
    "pins_of": "engine.checkpoints.pins",
    "plan_compaction": "engine.compaction.planner",
    "plan_inject": "engine.checkpoints.inject",
    "plot_columns": "engine.accounting.timeline",
    "protected_budget": "engine.compaction.budget",
    "raw_diff": "engine.checkpoints.diff",
    "read_checkpoint": "engine.checkpoints.store",
    "read_checkpoints": "engine.queries.checkpoints",
    "read_decisions": "engine.queries.decisions",
    "read_gauge": "engine.accounting.gauge",
    "read_message": "engine.queries.message",
    "read_outline": "engine.queries.tree",
    "read_tail": "engine.queries.transcript",
    "read_top_consumers": "engine.queries.context_rows",
    "record_action": "engine.fs.audit",
    "redact_secrets": "engine.capture.redact",
    "removed_by_retention": "engine.checkpoints.pins",
    "render_checkpoint": "engine.checkpoints.render",
    "resolve_context_window": "engine.accounting.windows",
    "resolve_state_dir": "engine.config.loader",
    "session_cost": "engine.usage.spend",
    "session_metrics": "engine.live.metrics",
    "set_pins": "engine.checkpoints.pins",
    "snapshot_session": "engine.session.snapshot",
    "strip_controls": "engine.text.terminal",
    "terminal_safe": "engine.text.terminal",
    "top_consumers": "engine.accounting.consumers",
    "utilization_timeline": "engine.accounting.timeline",
    "with_edited_summary": "engine.compaction.summary_edit",
    "write_checkpoint": "engine.checkpoints.store",
}

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from engine.accounting.consumers import Consumer, top_consumers
    from engine.accounting.context import ContextView, build_context, pi_branch
    from engine.accounting.gauge import GaugeLevel, GaugeReading, Marker, Thresholds, format_tokens, read_gauge
    from engine.accounting.measure import agent_estimate_text
    from engine.accounting.rounding import money, percent
    from engine.accounting.timeline import PlotColumn, Timeline, plot_columns, utilization_timeline
    from engine.accounting.tokens import count_tokens
    from engine.accounting.windows import ContextWindow, resolve_context_window
    from engine.agents.discovery import SessionNotFoundError, discover_sessions, find_session
    from engine.agents.session_reader import SessionReader, open_reader
    from engine.capture.redact import redact_secrets
    from engine.capture.state import CapturedState
    from engine.catalog.model_catalog import catalog_info
    from engine.checkpoints.builder import build_checkpoint
    from engine.checkpoints.diff import CheckpointDiff, diff_checkpoints, raw_diff
    from engine.checkpoints.inject import InjectRefusedError, apply_inject, plan_inject
    from engine.checkpoints.model import Checkpoint
    from engine.checkpoints.pins import pins_of, removed_by_retention, set_pins
    from engine.checkpoints.render import render_checkpoint
    from engine.checkpoints.store import latest_checkpoint, list_checkpoints, read_checkpoint, write_checkpoint
    from engine.compaction.agent_guard import agent_compaction_problem
    from engine.compaction.budget import ProtectedBudget, layer_budgets, protected_budget
    from engine.compaction.choice import default_layer
    from engine.compaction.controllers import (
        CompactionError,
        CompactionRefusedError,
        CompactionResult,
        NotCompactedError,
        apply_compaction,
    )
    from engine.compaction.degradation import DegradationAssessment, assess_degradation
    from engine.compaction.plan import CompactionPlan
    from engine.compaction.planner import plan_compaction
    from engine.compaction.summary_edit import with_edited_summary
    from engine.config.extras import missing_extra
    from engine.config.loader import Config, ConfigError, load_config, resolve_state_dir
    from engine.fs.audit import record_action
    from engine.fs.jsonl_append import AppendError, AppendRefusedError
    from engine.fs.lock_info import LockError
    from engine.fs.safe_path import UnsafePathError
    from engine.fs.session_lock import LockHeldError, LockInfo, inspect_lock
    from engine.index.cache import IndexCache, default_cache
    from engine.index.transcript_index import index_transcript
    from engine.live.insight import SessionInsight
    from engine.live.metrics import SessionMetrics, default_host, session_metrics
    from engine.live.tracker import Refreshed, SessionTracker
    from engine.llm.client import LLMError
    from engine.queries.audit import HistoryItem, audit_history
    from engine.queries.checkpoints import StoredCheckpoint, read_checkpoints
    from engine.queries.context_rows import (
        ContextRow,
        KeepRecent,
        context_cut,
        keep_recent_budget,
        measure_rows,
        read_top_consumers,
    )
    from engine.queries.decisions import DecisionsDigest, NotedItem, read_decisions
    from engine.queries.message import MessageText, message_text, read_message
    from engine.queries.transcript import TailMessage, read_tail
    from engine.queries.tree import read_outline
    from engine.session.agent_glance import agent_glance
    from engine.session.branches import Segment
    from engine.session.compaction_count import compaction_count, own_compactions
    from engine.session.cost import SessionCost
    from engine.session.glance import glance_session
    from engine.session.snapshot import SessionFollower, SessionSnapshot, snapshot_session
    from engine.sidecar import ContextManager, SidecarEvent
    from engine.stores.source import AGENT_FORMATS, Discovery, SessionSource
    from engine.stores.transcript import TranscriptError
    from engine.text.terminal import strip_controls, terminal_safe
    from engine.usage.aggregate import aggregate_usage
    from engine.usage.collect import collect_usage
    from engine.usage.model import GroupBy, SessionUsage, UsageReport, UsageTotals
    from engine.usage.spend import session_cost


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
