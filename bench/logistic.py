"""A small L2-regularised logistic regression over sparse named features, in pure Python.

Used by the quality benchmark to fit the capture heuristics' weights on training folds and by
``python -m bench.fit_capture`` to write the committed weights. Deterministic: full-batch gradient descent
with per-coordinate (AdaGrad) step sizes from zero weights, so the same data always gives the same model.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Features = Mapping[str, float]


@dataclass(frozen=True, slots=True)
class Model:
    """Weights of a fitted logistic model; ``score`` is the log-odds of the positive class."""

    weights: dict[str, float]
    bias: float

    def score(self, features: Features) -> float:
        """Log-odds for one example."""
        return self.bias + sum(self.weights.get(name, 0.0) * value for name, value in features.items())


def sigmoid(z: float) -> float:
    """The logistic function, safe for large ``|z|``."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def fit(
    examples: Sequence[Features],
    labels: Sequence[bool],
    *,
    l2: float = 1.0,
    iterations: int = 400,
    rate: float = 0.5,
    positive_weight: float = 1.0,
) -> Model:
    """Fit weights minimising the mean log-loss plus ``l2 / n * |w|^2 / 2`` (the bias is not penalised).

    Args:
        positive_weight: how much a positive example counts relative to a negative one.
    """
    n = len(examples)
    names = sorted({name for features in examples for name in features})
    index = {name: i for i, name in enumerate(names)}
    rows = [[(index[name], value) for name, value in features.items()] for features in examples]
    targets = [1.0 if y else 0.0 for y in labels]
    sample = [positive_weight if y else 1.0 for y in labels]
    total = sum(sample) or 1.0
    w = [0.0] * len(names)
    b = 0.0
    grad_sq = [1e-8] * len(names)
    bias_sq = 1e-8
    for _ in range(iterations):
        grad = [0.0] * len(names)
        bias_grad = 0.0
        for row, target, weight in zip(rows, targets, sample, strict=True):
            z = b + sum(w[i] * v for i, v in row)
            error = (sigmoid(z) - target) * weight / total
            bias_grad += error
            for i, v in row:
                grad[i] += error * v
        for i in range(len(w)):
            g = grad[i] + l2 / n * w[i]
            grad_sq[i] += g * g
            w[i] -= rate * g / math.sqrt(grad_sq[i])
        bias_sq += bias_grad * bias_grad
        b -= rate * bias_grad / math.sqrt(bias_sq)
    return Model({name: w[i] for name, i in index.items() if abs(w[i]) > 1e-6}, b)


def folds(n: int, k: int, strata: Sequence[str] | None = None) -> list[list[int]]:
    """``k`` disjoint test folds over ``range(n)``, dealt round-robin within each stratum (deterministic)."""
    out: list[list[int]] = [[] for _ in range(k)]
    keys = strata if strata is not None else ["" for _ in range(n)]
    counter: dict[str, int] = {}
    for i in range(n):
        c = counter.get(keys[i], 0)
        out[(c + hash_stratum(keys[i])) % k].append(i)
        counter[keys[i]] = c + 1
    return out


def hash_stratum(key: str) -> int:
    """A stable small integer for a stratum name (``hash`` is salted per process)."""
    return sum(key.encode()) % 97
