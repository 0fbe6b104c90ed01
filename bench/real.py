"""Capture on real sessions, scored per repository against hand labels: ``python -m bench.real [--retention]``.

Data: ``tests/data/real/`` of the tree it runs in -- each ``*.jsonl`` session with its ``*.labels.json`` and
``index.json`` naming the repository of each session (docs/capture.md, Benchmark). Labels list ``decisions``,
``constraints`` and ``open_items`` (each ``{id, text, keys}``), ``acceptable_*`` lists and ``identifiers``.

Scoring, per session and kind. A predicted item *matches* a label when, case-insensitively, it contains every
term of at least one of the label's ``keys`` alternatives. Predictions and labels are paired by a maximum
bipartite matching, so each label is matched at most once and each prediction at most once: TP = matched labels,
FN = unmatched labels. Predictions left unmatched are then paired (again at most once each) with the
``acceptable_*`` items; those count neither as TP nor as FP. Every other prediction is an FP. Precision =
TP / (TP + FP), recall = TP / (TP + FN), pooled over the sessions of a group (micro-average).

Predictions are what a checkpoint would carry after the session's last entry: ``capture()`` folded over every
entry, then its decisions, its learnings (the constraints) and its open items (``bench/real_capture.py``).

Folds: one per repository (no repository is in two folds). The capture rules are hand-written and fit no number
on this data, so a fold's figures are those of the rules on sessions of that repository alone; the table also
pools the *development* repositories (:data:`DEV_REPOSITORIES`, whose sessions the rules were written from)
apart from every other repository (never read while writing the rules).

Baseline, same run: the capture code of commit ``a832a5c`` (before issue 24), exported with ``git archive`` into
a temporary directory and run on the same files by the same driver in a subprocess.

``--retention``: each session cut into 4 parts by entries; after each part is appended the session is compacted
for real (planner ``summarize`` layer, ``jsonl`` controller); the final summary is searched for the labelled
decisions and constraints (same key rule) and the identifiers -- exact and case-sensitive as the labels give them,
and again as whole tokens (not inside a longer path or word, stricter: ``README.md`` inside ``apps/api/README.md``
does not count); the summary's size is
given as a share of the model's window (``bench/real_retention.py``). Same baseline.
``--retention-misses-of NAME`` (implies ``--retention``) then lists, for the sessions of that pooled group
only, each labelled decision and constraint no single item of ctxscope's final summary states (and whether
its terms are at least all somewhere in it) and each identifier the summary does not hold: for the group
the rules are tuned on, never a held-out one.

Speed: capture's CPU time (``time.process_time``) per message (user, assistant and tool-result entries), over
all sessions, for both.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.real_retention import misses_report, retention_report

KINDS = ("decisions", "constraints", "open_items")
BASELINE_COMMIT = "a832a5c"
DEV_REPOSITORIES = frozenset({
    "specstoryai/tnyOffice", "zchdoc/shadcn-ui-sidebar-08-admin-dev", "2333qbyqby/GlobalPose",
    "OdyAsh/odyash-dev.to", "0xmcc/ubi-course", "Rinku8381/seraphine-hybrid-v1",
})
"""The repositories of the twelve sessions read while writing the capture rules (docs/capture.md)."""
ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "real"


@dataclass(frozen=True)
class Session:
    """One labelled session."""

    name: str
    repository: str
    path: Path
    labels: dict[str, Any]


def load_corpus(data: Path = DATA) -> list[Session]:
    """The sessions of ``data``/index.json (``{"sessions": [{session, labels?, repository}]}`` or a list)."""
    index = json.loads((data / "index.json").read_text(encoding="utf-8"))
    rows = index.get("sessions", []) if isinstance(index, dict) else index
    sessions = []
    for row in rows:
        name = row.get("session") or row.get("file") or row.get("transcript")
        repository = row.get("repository") or row.get("repo")
        if not name or not repository:
            continue
        path = data / name
        labels_path = data / (row.get("labels") or name.removesuffix(".jsonl") + ".labels.json")
        if path.exists() and labels_path.exists():
            sessions.append(Session(name.removesuffix(".jsonl"), str(repository), path,
                                    json.loads(labels_path.read_text(encoding="utf-8"))))
    return sessions


def matches(text: str, label: dict[str, Any]) -> bool:
    """Whether ``text`` holds every term of one of ``label``'s key alternatives (case-insensitive)."""
    lowered = text.lower()
    return any(all(str(term).lower() in lowered for term in keys) for keys in label.get("keys") or [] if keys)


def _max_matching(left: int, edges: list[list[int]]) -> dict[int, int]:
    """Maximum bipartite matching (augmenting paths): right index -> left index."""
    owner: dict[int, int] = {}

    def augment(node: int, seen: set[int]) -> bool:
        for right in edges[node]:
            if right in seen:
                continue
            seen.add(right)
            if right not in owner or augment(owner[right], seen):
                owner[right] = node
                return True
        return False

    for node in range(left):
        augment(node, set())
    return owner


@dataclass
class Count:
    """Confusion counts of one kind."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    neutral: int = 0

    def add(self, other: Count) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.neutral += other.neutral

    def cell(self) -> str:
        p = self.tp / (self.tp + self.fp) if self.tp + self.fp else float("nan")
        r = self.tp / (self.tp + self.fn) if self.tp + self.fn else float("nan")
        return f"P {p:.2f} R {r:.2f} ({self.tp}/{self.tp + self.fp}/{self.tp + self.fn})"


def score(predicted: Sequence[str], labels: Sequence[dict[str, Any]], acceptable: Sequence[dict[str, Any]],
          misses: list[str] | None = None) -> Count:
    """Counts for one session and kind (the rule in the module docstring); ``misses`` collects FPs and FNs."""
    edges = [[j for j, label in enumerate(labels) if matches(p, label)] for p in predicted]
    owner = _max_matching(len(predicted), edges)
    matched = set(owner.values())
    rest = [i for i in range(len(predicted)) if i not in matched]
    soft = [[j for j, label in enumerate(acceptable) if matches(predicted[i], label)] for i in rest]
    neutral = len(_max_matching(len(rest), soft))
    neutral_preds = {rest[i] for i in _max_matching(len(rest), soft).values()}
    count = Count(tp=len(owner), fn=len(labels) - len(owner), neutral=neutral)
    count.fp = len(predicted) - count.tp - neutral
    if misses is not None:
        for i, p in enumerate(predicted):
            if i not in matched and i not in neutral_preds:
                misses.append(f"FP {p[:220]!r}")
        for j, label in enumerate(labels):
            if j not in owner:
                misses.append(f"FN {label.get('id')} {label.get('text', '')[:160]!r}")
    return count


def baseline_tree(commit: str = BASELINE_COMMIT) -> tempfile.TemporaryDirectory[str]:
    """A temporary directory holding ``git archive commit`` of this repository (the baseline's code, or the
    ``--before`` tree's)."""
    tmp = tempfile.TemporaryDirectory(prefix="ctxscope-baseline-")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", commit, "engine"],
                             check=True, capture_output=True).stdout
    tar_path = Path(tmp.name) / "engine.tar"
    tar_path.write_bytes(archive)
    with tarfile.open(tar_path) as tar:
        tar.extractall(tmp.name, filter="data")
    tar_path.unlink()
    return tmp


def run_driver(script: str, args: Sequence[str], code_root: Path) -> Any:
    """Run ``bench/<script>`` with ``engine`` imported from ``code_root``; its JSON output."""
    env = dict(os.environ, PYTHONPATH=str(code_root), PYTHONHASHSEED="0")
    out = subprocess.run([sys.executable, str(ROOT / "bench" / script), *args], check=True, capture_output=True,
                         env=env, text=True).stdout
    return json.loads(out)


def _groups(sessions: Sequence[Session]) -> dict[str, list[Session]]:
    groups: dict[str, list[Session]] = defaultdict(list)
    for s in sessions:
        groups[s.repository].append(s)
    return dict(sorted(groups.items()))


def parse_split(specs: Sequence[str]) -> dict[str, frozenset[str]]:
    """``["fit:owner/a,owner/b", "test:owner/c"]`` -> group name -> repositories (a repository in one group only)."""
    groups: dict[str, frozenset[str]] = {}
    for spec in specs:
        name, sep, repos = spec.partition(":")
        if not sep or not name or name in groups:
            raise ValueError(f"--split wants NAME:owner/repo,owner/repo (one per group): {spec!r}")
        groups[name] = frozenset(r.strip() for r in repos.split(",") if r.strip())
    seen: set[str] = set()
    for members in groups.values():
        if members & seen:
            raise ValueError(f"a repository is in two --split groups: {sorted(members & seen)}")
        seen |= members
    return groups


def _side(repository: str, split: dict[str, frozenset[str]] | None) -> str | None:
    """The pooled group of ``repository``: its --split group (None when in none), else development / other."""
    if split is None:
        return "development" if repository in DEV_REPOSITORIES else "other"
    return next((name for name, repos in split.items() if repository in repos), None)


def _table(sessions: Sequence[Session], arms: dict[str, dict[str, Any]], verbose: bool,
           split: dict[str, frozenset[str]] | None = None, misses_of: str | None = None,
           folds_of: str | None = None) -> None:
    """Per-fold and pooled counts; with ``split`` the pools are its groups (repositories in none: folds only).

    ``misses_of`` limits ``verbose`` to the sessions of that pooled group, so the misses of a held-out group are
    never printed while the rules are tuned on another (the pooled figures of both still are); ``folds_of`` does
    the same for the per-repository lines, so a held-out group shows only its pooled figures."""
    pooled: dict[tuple[str, str, str], Count] = defaultdict(Count)
    misses: dict[str, list[str]] = defaultdict(list)
    names = {"baseline": f"baseline {BASELINE_COMMIT}"}
    print(f"{'fold (repository)':<40} {'kind':<12} " + " ".join(f"{names.get(a, a):<28}" for a in arms))
    for repository, group in _groups(sessions).items():
        side = _side(repository, split)
        shown = folds_of is None or side == folds_of
        for kind in KINDS:
            cells = []
            for arm, predictions in arms.items():
                fold = Count()
                for s in group:
                    listed = arm == "ctxscope" and (misses_of is None or side == misses_of)
                    found = misses[f"{s.name} {kind}"] if listed else None
                    fold.add(score(predictions[str(s.path)][kind], s.labels.get(kind) or [],
                                   s.labels.get(f"acceptable_{kind}") or [], found))
                if side is not None:
                    pooled[(side, kind, arm)].add(fold)
                pooled[("all", kind, arm)].add(fold)
                cells.append(fold.cell())
            if shown:
                print(f"{repository[:40]:<40} {kind:<12} " + " ".join(f"{c:<28}" for c in cells))
    print()
    for side in (*(split or ("development", "other")), "all"):
        for kind in KINDS:
            if (side, kind, "ctxscope") in pooled:
                print(f"{'pooled: ' + side:<40} {kind:<12} "
                      + " ".join(f"{pooled[(side, kind, arm)].cell():<28}" for arm in arms))
    if verbose:
        for key, lines in sorted(misses.items()):
            for line in lines:
                print(f"  {key}: {line}")


def _speed(arms: dict[str, dict[str, Any]]) -> None:
    print("\ncapture speed (CPU time per message, all sessions)")
    for arm, predictions in arms.items():
        seconds = sum(p["seconds"] for p in predictions.values())
        messages = sum(p["messages"] for p in predictions.values())
        print(f"  {arm:<10} {1000 * seconds / max(1, messages):.3f} ms/message over {messages} messages"
              "  (target <= 1 ms)")


def _retention(sessions: Sequence[Session], code_roots: dict[str, Path],
               split: dict[str, frozenset[str]] | None = None, misses_of: str | None = None) -> None:
    print("\nretention after 4 compactions (final summary; labelled decisions and constraints stated in one item"
          " of it, and anywhere in it; identifiers exact, case-sensitive, and as whole tokens)")
    labels = {str(s.path): s.labels for s in sessions}
    arms = {arm: run_driver("real_retention.py", list(labels), root) for arm, root in code_roots.items()}
    for arm, results in arms.items():
        for path, result in results.items():
            if result.get("error"):
                print(f"  {arm} failed on {Path(path).name}: {result['error']} (counted as nothing kept)")
    groups: dict[str, list[str]] = defaultdict(list)
    for s in sessions:
        side = _side(s.repository, split)
        if side is not None:
            groups[side].append(str(s.path))
    retention_report(labels, arms, {**groups, "all": list(labels)})
    compactions = {arm: sum(r["compactions"] for r in results.values()) for arm, results in arms.items()}
    print("  compactions applied " + "   ".join(f"{arm} {n} of {4 * len(labels)}" for arm, n in compactions.items()))
    if misses_of is not None:
        # Only the named group's misses are listed (the held-out groups' stay pooled lines above).
        print(f"\nretention misses of {misses_of} (ctxscope's final summaries)")
        misses_report(labels, arms["ctxscope"], groups.get(misses_of, []))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.real", description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every FP and FN of ctxscope")
    parser.add_argument("--retention", action="store_true", help="also compact each session 4 times")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--split", action="append", default=[], metavar="NAME:owner/repo,...",
                        help="pool these repositories as group NAME (repeat per group, e.g. fit:... and test:...;"
                             " the folds stay per repository)")
    parser.add_argument("--misses-of", metavar="NAME",
                        help="with --verbose: list the misses of this pooled group only (never a held-out one)")
    parser.add_argument("--folds-of", metavar="NAME",
                        help="print the per-repository lines of this pooled group only (the others: pooled)")
    parser.add_argument("--retention-misses-of", metavar="NAME",
                        help="with --retention: list per session what the final summary of this pooled group's"
                             " sessions does not keep (never a held-out group)")
    parser.add_argument("--before", metavar="COMMIT",
                        help="also run the capture code of COMMIT (the tree before a change) as a third arm")
    args = parser.parse_args(argv)
    split = parse_split(args.split) if args.split else None
    for flag, group in (("--misses-of", args.misses_of), ("--folds-of", args.folds_of),
                        ("--retention-misses-of", args.retention_misses_of)):
        if group is not None and group not in (split or ("development", "other")):
            parser.error(f"{flag} {group!r} names no pooled group")
    sessions = load_corpus(args.data)
    repositories = {s.repository for s in sessions}
    print(f"{len(sessions)} sessions from {len(repositories)} repositories ({args.data}); "
          f"{len(repositories & DEV_REPOSITORIES)} development repositories, "
          f"{len(repositories - DEV_REPOSITORIES)} other")
    paths = [str(s.path) for s in sessions]
    with baseline_tree() as old, contextlib.ExitStack() as stack:
        roots = {"ctxscope": ROOT, "baseline": Path(old)}
        if args.before:
            roots[f"before {args.before[:7]}"] = Path(stack.enter_context(baseline_tree(args.before)))
        arms = {arm: run_driver("real_capture.py", paths, root) for arm, root in roots.items()}
        for arm, results in arms.items():
            for path, result in results.items():
                if result.get("error"):
                    print(f"  {arm} failed on {Path(path).name}: {result['error']} (counted as nothing captured)")
        _table(sessions, arms, args.verbose, split, args.misses_of, args.folds_of)
        _speed(arms)
        if args.retention or args.retention_misses_of:
            _retention(sessions, roots, split, args.retention_misses_of)
    return 0


if __name__ == "__main__":
    sys.exit(main())
