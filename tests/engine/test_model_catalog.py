"""The model catalogue: one data file for windows and prices, its look-up and the script that refreshes it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from engine.accounting.windows import resolve_context_window
from engine.catalog.model_catalog import catalog_info, lookup
from engine.session.cost import price_for

ROOT = Path(__file__).resolve().parents[2]


def _refresh_script():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("refresh_model_catalog", ROOT / "scripts/refresh_model_catalog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_catalogue_names_its_source_and_date() -> None:
    doc = json.loads((ROOT / "engine/catalog/model_catalog.json").read_text())
    info = catalog_info()
    assert info.source == doc["source"] and "litellm" in info.source
    assert info.retrieved == doc["retrieved"] and info.models == len(doc["models"]) > 100
    assert info.label == f"catalog:{info.source.split(' (')[0]} ({info.retrieved})"


@pytest.mark.parametrize(
    ("model", "matched"),
    [
        ("claude-sonnet-4-5-20250929", "claude-sonnet-4-5-20250929"),
        ("anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"),  # OpenRouter's dotted spelling
        ("claude-4-opus", "claude-opus-4-20250514"),  # family-last spelling → the newest dated release
        ("claude-opus-4-1", "claude-opus-4-1-20250805"),
        ("claude-opus-4-6-thinking", "claude-opus-4-6"),  # a variant suffix of a known id
        ("GPT-5.1-Codex-Max-High", "gpt-5.1-codex-max"),
        ("moonshotai/kimi-k2.6", "kimi-k2.6"),
    ],
)
def test_agent_spellings_find_their_catalogue_row(model: str, matched: str) -> None:
    entry = lookup(model)
    assert entry is not None and entry.id == matched


def test_a_bare_family_name_in_the_table_never_stands_in_for_a_versioned_model() -> None:
    # LiteLLM lists a legacy "claude" (100k window, $8/$24): "claude-opus-9" must stay unknown, not become it.
    assert lookup("claude") is not None and lookup("claude").id == "claude"  # type: ignore[union-attr]
    assert lookup("claude-opus-9") is None
    assert lookup("totally-unknown-model") is None and lookup(None) is None and lookup("") is None


def test_one_million_suffix_sets_the_window_and_keeps_the_prices() -> None:
    plain, wide = lookup("claude-sonnet-4-5"), lookup("claude-sonnet-4-5[1m]")
    assert plain is not None and wide is not None
    assert (plain.window, wide.window) == (200_000, 1_000_000)
    assert (plain.input, plain.output) == (wide.input, wide.output)
    assert resolve_context_window(model="claude-sonnet-4-5[1m]").tokens == 1_000_000


def test_window_and_price_come_from_the_same_row() -> None:
    entry = lookup("gpt-5")
    price = price_for("gpt-5")
    assert entry is not None and price is not None
    assert resolve_context_window(model="gpt-5").tokens == entry.window
    assert (price.input, price.output) == (entry.input, entry.output)
    assert price.source == "catalog:gpt-5"


def test_missing_cache_rates_never_price_a_call_below_its_input_rate() -> None:
    price = price_for("gpt-5")  # OpenAI lists no cache-write premium
    assert price is not None and price.cache_write_5m == price.cache_write_1h == price.input


def test_refresh_keeps_first_hand_rows_and_one_spelling_per_model() -> None:
    build = _refresh_script().build_catalog
    table = {
        "sample_spec": {"mode": "chat", "litellm_provider": "one of …"},
        "claude-x-1": {"mode": "chat", "litellm_provider": "anthropic", "max_input_tokens": 200_000,
                       "input_cost_per_token": 3e-6, "output_cost_per_token": 1.5e-5},
        "eu.anthropic.claude-x-1-v1:0": {"mode": "chat", "litellm_provider": "bedrock_converse",
                                         "max_input_tokens": 200_000, "input_cost_per_token": 3.3e-6,
                                         "output_cost_per_token": 1.65e-5},
        "bedrock/anthropic.claude-y-2-v1:0": {"mode": "chat", "litellm_provider": "bedrock",
                                              "max_input_tokens": 100_000, "input_cost_per_token": 1e-6,
                                              "output_cost_per_token": 5e-6},
        "dashscope/qwen-z": {"mode": "chat", "litellm_provider": "dashscope", "max_input_tokens": 258_048,
                             "tiered_pricing": [{"input_cost_per_token": 1.2e-6, "output_cost_per_token": 6e-6}]},
        "text-embedding-x": {"mode": "embedding", "litellm_provider": "openai", "input_cost_per_token": 1e-7},
        "fireworks_ai/some-model": {"mode": "chat", "litellm_provider": "fireworks_ai", "max_input_tokens": 8},
    }
    rows = build(table)
    assert set(rows) == {"claude-x-1", "claude-y-2", "qwen-z"}
    # The vendor's own row wins over the regional re-seller's surcharge; Anthropic's cache multipliers fill gaps.
    assert rows["claude-x-1"] == [200_000, 3.0, 15.0, 0.3, 3.75, 6.0]
    assert rows["claude-y-2"][0] == 100_000
    assert rows["qwen-z"] == [258_048, 1.2, 6.0, None, None, None]
