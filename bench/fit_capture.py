"""Fit the capture heuristics' numbers on labelled data and write them to ``engine/capture/weights.py``.

Run from the project root: ``.venv/bin/python -m bench.fit_capture`` (``--check`` only prints the fit).

Decisions: every candidate line of every labelled response (``tests/data/decisions_dev*.jsonl``) is one
example, positive when it is one of the response's expected lines; each response is used twice, with and
without the user's reply, so the same weights serve callers that know the reply and callers that do not (a row
marked ``label_needs_reply``, whose label the reply decides, only with it). A
logistic regression (``bench/logistic.py``) gives the weights; the threshold is the best candidate score that
maximises F0.5 (precision weighted twice recall) on the same data. Dedup: the similarity threshold that
maximises F0.5 over the labelled pairs (``tests/data/dedup_dev*.jsonl``). ``bench.quality`` runs the same
fits inside k-fold cross-validation, which is where the honest figures come from.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from bench.logistic import fit
from engine.capture.decision_features import Candidate, candidates
from engine.capture.decisions import DecisionModel
from engine.capture.dedup import normalize

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
DECISION_FILES = ("decisions_dev.jsonl", "decisions_dev2.jsonl", "decisions_dev3.jsonl")
DEDUP_FILES = ("dedup_dev.jsonl", "dedup_dev2.jsonl")
WEIGHTS = ROOT / "engine" / "capture" / "weights.py"
L2 = 1.0
BETA = 0.5


def load(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load_all(names: Iterable[str]) -> list[dict[str, Any]]:
    """Rows of several data files in order."""
    return [row for name in names for row in load(DATA / name)]


def matches(prediction: str, expected: Iterable[str]) -> bool:
    """True if ``prediction`` is one of the ``expected`` lines (markdown, case and whitespace ignored).

    A prediction cut at the length cap matches a line it is a prefix of.
    """
    pred = normalize(prediction)
    truncated = prediction.endswith("…") and normalize(prediction.removesuffix("…"))
    return any(pred == normalize(e) or (truncated and normalize(e).startswith(truncated)) for e in expected)


def f_beta(tp: int, fp: int, fn: int, beta: float = BETA) -> float:
    """F-beta from confusion counts (0 when nothing is right)."""
    if tp == 0:
        return 0.0
    p, r = tp / (tp + fp), tp / (tp + fn)
    return (1 + beta * beta) * p * r / (beta * beta * p + r)


def decision_examples(rows: Sequence[dict[str, Any]], with_reply: bool) -> list[list[Candidate]]:
    """The candidates of each response, with or without the user's reply."""
    return [candidates(row["agent_response"], row["user_reply"] if with_reply else None) for row in rows]


def _best(model: DecisionModel, cands: list[Candidate]) -> tuple[float, Candidate | None]:
    best: tuple[float, Candidate | None] = (float("-inf"), None)
    for c in cands:
        score = model.score(c.features)
        if best[1] is None or score > best[0]:
            best = (score, c)
    return best


def fit_decisions(rows: Sequence[dict[str, Any]]) -> DecisionModel:
    """A decision model fit on ``rows`` (weights by logistic regression, threshold by F0.5)."""
    # A row whose label the user's reply decides ("Decision: X. Go ahead?" + "yes" / "let me think") says nothing
    # about the response alone, so it is used only with its reply.
    alone = [row for row in rows if not row.get("label_needs_reply")]
    groups = decision_examples(rows, True) + decision_examples(alone, False)
    expected = [row["expected"] for row in rows] + [row["expected"] for row in alone]
    examples = [c.features for cands in groups for c in cands]
    labels = [bool(exp) and matches(c.text, exp) for cands, exp in zip(groups, expected, strict=True) for c in cands]
    logistic = fit(examples, labels, l2=L2)
    model = DecisionModel(logistic.weights, logistic.bias, 0.0)
    best = [_best(model, cands) for cands in groups]
    outcomes = [
        (score, c is not None and bool(exp) and matches(c.text, exp), bool(exp))
        for (score, c), exp in zip(best, expected, strict=True)
    ]
    positives = sum(1 for *_, has in outcomes if has)
    scores = sorted({score for score, _, _ in outcomes if score != float("-inf")})
    # Thresholds halfway between observed scores: the chosen cut does not sit on a training example.
    cuts = [scores[0] - 1.0] + [(lo + hi) / 2 for lo, hi in itertools.pairwise(scores)]
    threshold, best_f = 0.0, -1.0
    for cut in cuts:
        tp = sum(1 for score, ok, _ in outcomes if score >= cut and ok)
        fp = sum(1 for score, ok, _ in outcomes if score >= cut and not ok)
        value = f_beta(tp, fp, positives - tp)
        if value > best_f:
            threshold, best_f = cut, value
    return DecisionModel(logistic.weights, logistic.bias, threshold)


def fit_dedup_threshold(rows: Sequence[dict[str, Any]]) -> float:
    """The similarity threshold that maximises F0.5 on ``rows`` (vetoes and covering rules are fixed)."""
    from engine.capture.dedup import is_semantic_duplicate

    grid = [round(0.25 + 0.05 * i, 2) for i in range(12)]
    values = []
    for t in grid:
        tp = fp = fn = 0
        for row in rows:
            predicted, actual = is_semantic_duplicate(row["a"], row["b"], t), bool(row["duplicate"])
            tp += predicted and actual
            fp += predicted and not actual
            fn += actual and not predicted
        values.append(f_beta(tp, fp, fn))
    # The middle of the best plateau, so the choice does not hang on one training pair.
    best = [t for t, v in zip(grid, values, strict=True) if v >= max(values) - 1e-9]
    return best[len(best) // 2]


def render_weights(model: DecisionModel, dedup_threshold: float) -> str:
    """The text of ``engine/capture/weights.py`` for a fitted model and dedup threshold."""
    weights = "\n".join(f"    {name!r}: {value:.4f}," for name, value in sorted(model.weights.items()))
    return (
        '"""Numbers fit on the labelled data in ``tests/data``; written by ``python -m bench.fit_capture``.\n\n'
        "Do not edit by hand: change the features or the data and run the fit again. Cross-validated figures\n"
        'for these choices are printed by ``python -m bench.quality``.\n"""\n\n'
        "from __future__ import annotations\n\n"
        f"DECISION_WEIGHTS: dict[str, float] = {{\n{weights}\n}}\n"
        '"""Logistic weights of the decision candidate features (``engine.capture.decision_features``)."""\n'
        f"DECISION_BIAS = {model.bias:.4f}\n"
        f"DECISION_THRESHOLD = {model.threshold:.4f}\n"
        '"""Log-odds the best candidate of a response must reach to be reported."""\n'
        f"DEDUP_THRESHOLD = {dedup_threshold}\n"
        '"""Share of matched words at or above which two texts that neither cover the other are duplicates."""\n'
    )


def main(argv: list[str] | None = None) -> None:
    """Fit on all labelled data and write ``engine/capture/weights.py`` (unless ``--check``)."""
    parser = argparse.ArgumentParser(prog="python -m bench.fit_capture", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print the fit without writing the file")
    args = parser.parse_args(argv)
    model = fit_decisions(load_all(DECISION_FILES))
    threshold = fit_dedup_threshold(load_all(DEDUP_FILES))
    print(f"decision model: {len(model.weights)} weights, bias {model.bias:.3f}, threshold {model.threshold:.3f}")
    print(f"dedup threshold: {threshold}")
    if not args.check:
        WEIGHTS.write_text(render_weights(model, threshold), encoding="utf-8")
        print(f"wrote {WEIGHTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
