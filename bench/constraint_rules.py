"""Which rule made each captured constraint, on the sessions of the named repositories only:
``python -m bench.constraint_rules owner/a,owner/b …`` (docs/capture.md, round 28).

Provenance is re-derived here, on the bench side, so nothing the product shows changes: each constraint of a
session's final ledger carries its path (``preference``, ``correction``, ``restated``, ``agent``); a preference's
sentences are read again and every top-level alternative of the rule patterns in ``act_forms.py`` (and the
Chinese, Japanese, Korean, scope, manner and class tables) that matches one of them is named; a correction names
the opener that matched. Each item is scored as ``bench/real.py`` scores it (TP, FP, or neither when it matches
only an acceptable label). Per rule: TPs, FPs, and the distinct repositories its TPs come from.

It reads only the sessions of the repositories given, so it can be run on the group the rules are tuned on and on
no other.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from bench.real import _max_matching, load_corpus, matches


def _structure(pattern: str) -> Iterator[tuple[int, str, int]]:
    """Each character of ``pattern`` outside escapes and character classes, with its index and the group depth
    after it (an opening parenthesis counts itself)."""
    depth, i, klass = 0, 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if klass:
            klass = c != "]"
        elif c == "[":
            klass = True
        else:
            depth += (c == "(") - (c == ")")
            yield i, c, depth
        i += 1


def _alternatives(pattern: str) -> list[str]:
    """The top-level ``|`` alternatives of ``pattern``; an alternative ``\\b(?:A|B)\\b`` is opened into its parts."""
    cuts = [i for i, c, depth in _structure(pattern) if c == "|" and depth == 0]
    parts = [pattern[a + 1:b] for a, b in zip([-1, *cuts], [*cuts, len(pattern)], strict=True)]
    out: list[str] = []
    for part in parts:
        inner = re.fullmatch(r"\\b\(\?:(.*)\)\\b", part, re.S)
        if inner and _balanced(inner.group(1)) and len(_alternatives(inner.group(1))) > 1:
            out.extend(rf"\b(?:{alt})\b" for alt in _alternatives(inner.group(1)))
        else:
            out.append(part)
    return out


def _balanced(pattern: str) -> bool:
    """Whether ``pattern``'s groups close within it (``\\b(?:A)\\s+(?:B)\\b`` is two groups, not one)."""
    depths = [depth for _, _, depth in _structure(pattern)]
    return min(depths, default=0) >= 0 and (depths[-1] if depths else 0) == 0


def _named(prefix: str, compiled: re.Pattern[str]) -> list[tuple[str, re.Pattern[str]]]:
    rules = []
    for alt in _alternatives(compiled.pattern):
        try:
            rules.append((f"{prefix}:{alt[:48]}", re.compile(alt, compiled.flags)))
        except re.error:
            rules.append((f"{prefix}:(whole)", compiled))
            break
    return rules


def _rules() -> list[tuple[str, re.Pattern[str]]]:
    from engine.capture import act_forms as f
    from engine.capture.language.japanese import JA_PREFERENCE

    rules = _named("PREF", f.PREFERENCE)
    rules += [("CONVENTION", f.CONVENTION), ("SCOPE_LIMIT", f.SCOPE_LIMIT), ("BRIEF", f.BRIEF),
              ("STANDING", f.STANDING)]
    rules += _named("ZH", f.ZH_PREFERENCE) + _named("JA", JA_PREFERENCE)
    return rules


def _corrections() -> list[tuple[str, re.Pattern[str]]]:
    from engine.capture import act_forms as f

    inner = f.CORRECTION.pattern.removeprefix("^(?:").removesuffix(")")
    rules = [(f"CORR:{alt[:40]}", re.compile("^(?:" + alt + ")", f.CORRECTION.flags)) for alt in _alternatives(inner)]
    return [*rules, ("CORR:zh", f.ZH_CORRECTION), ("CORR:disapproves", f.DISAPPROVES)]


def provenance(item: str, source: str) -> list[str]:
    """The rules that made the constraint ``item`` captured on path ``source``."""
    from engine.capture.act_forms import ALWAYS_DESCRIBES, LEAD
    from engine.capture.acts import _read_sentence, sentences

    if source in ("restated", "agent"):
        return [source]
    if source == "correction":
        item = item.replace("’", "'")  # as `_read_sentence` reads it
        first = LEAD.sub("", sentences(item)[0] if sentences(item) else item).strip()
        heads = sentences(item)[:2]
        opened = [name for name, rx in _corrections() if (rx.search(" ".join(heads)) if name == "CORR:disapproves"
                                                            else rx.match(first))]
        return opened or ["CORR:other (ko / lead)"]
    found: set[str] = set()
    for text in sentences(item):
        read = _read_sentence(text)
        if not read.preference:
            continue
        core = LEAD.sub("", text.replace("’", "'")).strip()
        ruled = ALWAYS_DESCRIBES.sub(" ", core) if "always" in core.lower() else core
        hits = [name for name, rx in _rules() if rx.search(ruled if name.startswith("PREF") else core)]
        found.update(hits or ["other (ko / standing via instruction)"])
    return sorted(found) or ["preference:unread"]


def _session_items(path: Any) -> list[tuple[str, str]]:
    from engine.capture.state import MAX_LEARNINGS, CapturedState, capture
    from engine.stores.transcript import read_transcript

    reader = read_transcript(path)
    state = capture(CapturedState(), list(reader.entries), reader.read_object)
    items = [(i.text, i.source) for i in state.ledger.items if i.kind == "constraint"][-MAX_LEARNINGS:]
    assert [t for t, _ in items] == list(state.learnings)
    return items


def main(argv: list[str]) -> int:
    repos = frozenset(r.strip() for arg in argv for r in arg.split(",") if r.strip())
    per_rule: dict[str, dict[str, Any]] = defaultdict(lambda: {"tp": 0, "fp": 0, "repos": set(), "fp_repos": set()})
    for s in load_corpus():
        if s.repository not in repos:
            continue
        items = _session_items(s.path)
        labels = s.labels.get("constraints") or []
        acceptable = s.labels.get("acceptable_constraints") or []
        owner = _max_matching(len(items), [[j for j, lab in enumerate(labels) if matches(t, lab)] for t, _ in items])
        matched = set(owner.values())
        rest = [i for i in range(len(items)) if i not in matched]
        soft = _max_matching(len(rest), [[j for j, lab in enumerate(acceptable) if matches(items[i][0], lab)]
                                         for i in rest])
        neutral = {rest[i] for i in soft.values()}
        for n, (text, source) in enumerate(items):
            verdict = "TP" if n in matched else "--" if n in neutral else "FP"
            rules = provenance(text, source)
            print(f"{verdict} {s.name} [{s.repository}] {source}: {', '.join(rules)}\n     {text[:200]!r}")
            for rule in rules:
                if verdict == "TP":
                    per_rule[rule]["tp"] += 1
                    per_rule[rule]["repos"].add(s.repository)
                elif verdict == "FP":
                    per_rule[rule]["fp"] += 1
                    per_rule[rule]["fp_repos"].add(s.repository)
    print(f"\n{'rule':<60} TP  FP  TP-repos FP-repos")
    for rule, row in sorted(per_rule.items(), key=lambda kv: (-kv[1]["fp"], kv[0])):
        print(f"{rule:<60} {row['tp']:>3} {row['fp']:>3} {len(row['repos']):>4}     {len(row['fp_repos']):>4}"
              f"   {','.join(sorted(r.split('/')[1][:14] for r in row['repos']))}"
              f" | FP: {','.join(sorted(r.split('/')[1][:14] for r in row['fp_repos']))}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
