"""Precision and recall of the checkpoint text heuristics on the hand-labelled dev sets (SPEC §4).

Run from the project root: ``.venv/bin/python -m bench.quality`` (``--verbose`` lists every miss).

Decision extraction (``tests/data/decisions_dev.jsonl``: ``agent_response``, ``user_reply``, ``expected``, ``why``).
``expected`` lists the acceptable decision lines of a response: empty when the response holds no decision, one
line usually, two when either is defensible. The extractor returns at most one string, so each response counts
once:

* a prediction *matches* an expected line when both are equal after :func:`engine.capture.dedup.normalize` (list
  markers, ``*`` and backticks, case and whitespace ignored), or when the prediction was cut at the 200-char cap
  and, without its ellipsis, is a prefix of the expected line;
* TP: the prediction matches one of the expected lines;
* FP: a prediction that matches none -- noise on a response without a decision, or the wrong line of a
  response with one;
* FN: a response with at least one expected line and no matching prediction (so a wrong line is FP *and* FN);
* TN: no expected line and no prediction.

Precision = TP / (TP + FP), the share of captured decisions that are right; recall = TP / (TP + FN), the share
of responses with a decision whose decision was captured.

Semantic dedup (``tests/data/dedup_dev.jsonl``: ``a``, ``b``, ``duplicate``, ``why``): one binary decision per
pair, TP = both the rules and the label say duplicate. The default rules are also swept over the Jaccard
threshold, to show how much the figure depends on it.

Both data sets were read while the default rules were written, so their figures are optimistic; the seed's
figures are a fair baseline. Targets: decisions P >= 0.9 with R >= 0.6; dedup P >= 0.9 with R >= 0.8.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.capture.decisions import extract_decision_from_response, extract_decision_from_response_seed
from engine.capture.dedup import DEFAULT_THRESHOLD, is_semantic_duplicate, is_semantic_duplicate_seed, normalize

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
DECISIONS = DATA / "decisions_dev.jsonl"
DEDUP = DATA / "dedup_dev.jsonl"


@dataclass(frozen=True, slots=True)
class Score:
    """Confusion counts of one rule set on one data set."""

    tp: int
    fp: int
    fn: int
    tn: int
    misses: tuple[str, ...]
    """Item ids with an FP or FN, and why, for ``--verbose``."""

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def load(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def matches(prediction: str, expected: Iterable[str]) -> bool:
    """True if ``prediction`` is one of the ``expected`` lines (see the module docstring)."""
    pred = normalize(prediction)
    truncated = prediction.endswith("…") and normalize(prediction.removesuffix("…"))
    return any(pred == normalize(e) or (truncated and normalize(e).startswith(truncated)) for e in expected)


def score_decisions(rows: list[dict[str, Any]], extract: Callable[[str], str | None]) -> Score:
    """Confusion counts of a decision extractor over the labelled responses."""
    tp = fp = fn = tn = 0
    misses: list[str] = []
    for row in rows:
        expected: list[str] = row["expected"]
        prediction = extract(row["agent_response"])
        if prediction is not None and matches(prediction, expected):
            tp += 1
            continue
        fp += prediction is not None
        fn += bool(expected)
        tn += prediction is None and not expected
        if prediction is not None or expected:
            misses.append(f"{row['id']}: got {prediction!r}; expected {expected!r}")
    return Score(tp, fp, fn, tn, tuple(misses))


def score_dedup(rows: list[dict[str, Any]], is_duplicate: Callable[[str, str], bool]) -> Score:
    """Confusion counts of a duplicate test over the labelled pairs."""
    tp = fp = fn = tn = 0
    misses: list[str] = []
    for row in rows:
        predicted, actual = is_duplicate(row["a"], row["b"]), bool(row["duplicate"])
        tp += predicted and actual
        fp += predicted and not actual
        fn += actual and not predicted
        tn += not predicted and not actual
        if predicted != actual:
            kind = "FP" if predicted else "FN"
            misses.append(f"{row['id']} {kind}: {row['a']!r} / {row['b']!r} ({row['why']})")
    return Score(tp, fp, fn, tn, tuple(misses))


def _line(task: str, rules: str, s: Score) -> str:
    return f"{task:<10} {rules:<9} {s.tp:>4} {s.fp:>4} {s.fn:>4} {s.tn:>4} {s.precision:>10.2f} {s.recall:>7.2f}"


def main(argv: list[str] | None = None) -> None:
    """Print the precision/recall table for the seed and default rules."""
    parser = argparse.ArgumentParser(prog="python -m bench.quality", description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every FP and FN")
    args = parser.parse_args(argv)

    decisions, pairs = load(DECISIONS), load(DEDUP)
    results = [
        ("decisions", "seed", score_decisions(decisions, extract_decision_from_response_seed)),
        ("decisions", "default", score_decisions(decisions, extract_decision_from_response)),
        ("dedup", "seed", score_dedup(pairs, is_semantic_duplicate_seed)),
        ("dedup", "default", score_dedup(pairs, is_semantic_duplicate)),
    ]
    print(f"{len(decisions)} labelled responses ({DECISIONS.name}), {len(pairs)} labelled pairs ({DEDUP.name})")
    print(f"{'task':<10} {'rules':<9} {'TP':>4} {'FP':>4} {'FN':>4} {'TN':>4} {'precision':>10} {'recall':>7}")
    for task, rules, s in results:
        print(_line(task, rules, s))

    print(f"\ndedup, default rules, by Jaccard threshold (default {DEFAULT_THRESHOLD}):")
    for threshold in (0.3, 0.35, 0.4, 0.45, 0.5, 0.6):
        s = score_dedup(pairs, lambda a, b, t=threshold: is_semantic_duplicate(a, b, t))
        print(f"  {threshold:.2f}: TP {s.tp:>2} FP {s.fp:>2} FN {s.fn:>2}  P {s.precision:.2f} R {s.recall:.2f}")

    if args.verbose:
        for task, rules, s in results:
            print(f"\n{task} / {rules}: {len(s.misses)} errors")
            for miss in s.misses:
                print(f"  {miss}")


if __name__ == "__main__":
    main()
