"""Refresh engine/catalog/model_catalog.json from LiteLLM's model table (docs/models.md).

LiteLLM ships ``model_prices_and_context_window_backup.json`` inside its wheel on PyPI, so the table can be had
with nothing but pip. This script downloads the wheel (no dependencies, nothing installed), reads the table, keeps
the chat models of the vendors whose list prices are first-hand, folds the re-sellers' spellings of the same model
onto one id, and writes the compact catalogue the engine reads.

    python scripts/refresh_model_catalog.py                 # newest litellm on PyPI
    python scripts/refresh_model_catalog.py --version 1.110.2
    python scripts/refresh_model_catalog.py --table path/to/model_prices.json   # offline, from a file

Review the diff of the catalogue before committing it: a vendor renaming a model shows up as a removed id.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from datetime import UTC, datetime
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "engine" / "catalog" / "model_catalog.json"
TABLE_IN_WHEEL = "litellm/model_prices_and_context_window_backup.json"

# Providers ranked by how first-hand their figures are: the vendor's own API first, then the clouds that resell it
# at list price, then anything else. A model keeps the figures of the best-ranked provider that lists it.
PROVIDER_RANK = (
    "anthropic", "openai", "gemini", "xai", "deepseek", "mistral", "moonshot", "minimax", "zai", "dashscope",
    "bedrock_converse", "bedrock", "vertex_ai-language-models", "vertex_ai-anthropic_models",
    "vertex_ai-openai_models", "vertex_ai-deepseek_models", "vertex_ai-qwen_models", "vertex_ai-moonshot_models",
    "vertex_ai-minimax_models", "vertex_ai-zai_models", "qwen_ai_platform", "qwencloud", "bigmodel",
)
KEPT_MODES = ("chat", "responses")
# Ids agents record that LiteLLM's table lacks, with what the vendor publishes (window only: no list price is
# published for a subscription model, so its calls stay unpriced). Keep this short and cite each row.
SUPPLEMENT: dict[str, tuple[list[float | int | None], str]] = {
    "kimi-code": ([262_144, None, None, None, None, None],
                  "Kimi Code (OpenClaw's kimi-coding provider): Moonshot's 256k-context K2 coding model"),
}
# Cloud region and vendor prefixes that do not change which model it is ("bedrock/us-east-1/anthropic.claude-…").
_PATH_PREFIX = re.compile(r"^(?:[a-z0-9_.-]+/)+")
_CLOUD_PREFIX = re.compile(r"^(?:(?:us|eu|apac|au|jp|global|us-gov)\.)?(?:anthropic|moonshotai|qwen|minimax|"
                           r"google|openai|deepseek|mistral|zai|meta|amazon)\.")
_CLOUD_SUFFIX = re.compile(r"-v\d+(?::\d+)?$")


def canonical_id(raw: str) -> str:
    """One spelling per model: lower-case, no provider path, no cloud vendor prefix or version suffix."""
    name = _PATH_PREFIX.sub("", raw.strip().lower())
    name = _CLOUD_PREFIX.sub("", name)
    name = _CLOUD_SUFFIX.sub("", name)
    return name.replace("@", "-")


def _per_million(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return round(float(value) * 1_000_000, 6)
    return None


def _complete_anthropic(model: str, row: list[float | int | None]) -> None:
    # The table leaves cache rates out for older Claude models; Anthropic prices every model's cache by the same
    # published multipliers of its input rate: read 0.1x, 5-minute write 1.25x, 1-hour write 2x.
    inp = row[1]
    if not model.startswith("claude") or inp is None:
        return
    for column, factor in ((3, 0.1), (4, 1.25), (5, 2.0)):
        if row[column] is None:
            row[column] = round(float(inp) * factor, 6)


def build_catalog(table: dict[str, object]) -> dict[str, list[float | int | None]]:
    """Catalogue rows ``id → [window, input, output, cache_read, cache_write_5m, cache_write_1h]`` (USD / 1M)."""
    rank = {p: i for i, p in enumerate(PROVIDER_RANK)}
    best: dict[str, tuple[int, bool, list[float | int | None]]] = {}
    for raw, spec in table.items():
        if not isinstance(spec, dict) or spec.get("mode") not in KEPT_MODES or "*" in raw:
            continue
        provider = spec.get("litellm_provider")
        if provider not in rank:
            continue
        window = spec.get("max_input_tokens")
        if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
            window = None
        rates = spec
        tiers = spec.get("tiered_pricing")
        if spec.get("input_cost_per_token") is None and isinstance(tiers, list) and tiers and isinstance(tiers[0],
                                                                                                      dict):
            # Prices by prompt size (Alibaba's Qwen): the first tier, which every call pays up to its bound.
            rates = tiers[0]
        row = [
            window,
            _per_million(rates.get("input_cost_per_token")),
            _per_million(rates.get("output_cost_per_token")),
            _per_million(spec.get("cache_read_input_token_cost")),
            _per_million(spec.get("cache_creation_input_token_cost")),
            _per_million(spec.get("cache_creation_input_token_cost_above_1hr")),
        ]
        if row[0] is None and row[1] is None:
            continue
        _complete_anthropic(canonical_id(raw), row)
        # Regional endpoints ("eu.", "us/") carry a surcharge: the global spelling wins at equal rank.
        regional = bool(re.search(r"(^|/)(us|eu|apac|jp|au)[./-]", raw.lower()))
        key = canonical_id(raw)
        candidate = (rank[provider], regional, row)
        if key not in best or candidate[:2] < best[key][:2]:
            best[key] = candidate
    return {key: best[key][2] for key in sorted(best)}


def _download_table(version: str | None) -> tuple[dict[str, object], str]:
    with tempfile.TemporaryDirectory() as tmp:
        spec = f"litellm=={version}" if version else "litellm"
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", tmp, spec], check=True)
        wheel = next(Path(tmp).glob("litellm-*.whl"))
        got = wheel.name.split("-")[1]
        with zipfile.ZipFile(wheel) as zf:
            return json.loads(zf.read(TABLE_IN_WHEEL)), f"litellm {got} (PyPI wheel, {TABLE_IN_WHEEL})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", help="litellm version on PyPI (default: newest)")
    parser.add_argument("--table", type=Path, help="read this model_prices JSON instead of downloading")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    if args.table:
        table, source = json.loads(args.table.read_text()), f"{args.table.name} (local file)"
    else:
        table, source = _download_table(args.version)
    models = build_catalog(table)
    for model_id, (row, _note) in SUPPLEMENT.items():
        models.setdefault(model_id, row)
    models = dict(sorted(models.items()))
    doc = {
        "source": source,
        "retrieved": datetime.now(UTC).strftime("%Y-%m-%d"),
        "licence": "LiteLLM's model table, MIT licence (BerriAI/litellm)",
        "columns": ["window", "input", "output", "cache_read", "cache_write_5m", "cache_write_1h"],
        "units": "window in tokens (max input tokens); prices in USD per million tokens; null = not listed",
        "completed": "Claude models' missing cache rates from Anthropic's multipliers (read 0.1x, write 1.25x/2x)",
        "supplemented": {model_id: note for model_id, (_row, note) in SUPPLEMENT.items()},
        "models": models,
    }
    lines = [json.dumps({k: v for k, v in doc.items() if k != "models"}, ensure_ascii=False)[:-1] + ', "models": {']
    rows = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in models.items()]
    args.out.write_text("\n".join(lines) + "\n" + ",\n".join(rows) + "\n}}\n")
    print(f"{len(models)} models from {source} → {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
