"""ctxscope's OpenClaw-format summaries pass OpenClaw's own quality audit, run by OpenClaw's code in node.

OpenClaw's compaction safeguard rejects a summary that lacks one of its five sections, repeats one, loses an
opaque identifier of the last summarized messages, or does not reflect the latest user ask. We plan a
``summarize`` compaction (nothing written) of every OpenClaw fixture and of a simulated agent that has compacted
itself, in OpenClaw's format, and hand each summary with its summarized messages to that audit
(``quality_audit.mjs``). Two damaged summaries show the audit is not a rubber stamp.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from engine.compaction.openclaw_summary import openclaw_summary
from sim.simulate import run_simulation
from tests.realagents.openclaw.install import OpenClawInstall

pytestmark = pytest.mark.realagents

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "openclaw"
AUDIT = Path(__file__).with_name("quality_audit.mjs")
KEEP_RECENT = 2_000


def _audit(install: OpenClawInstall, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    done = subprocess.run([str(install.node), str(AUDIT), str(install.package_dir)], input=json.dumps(cases),
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    verdicts = json.loads(done.stdout)
    assert isinstance(verdicts, list) and len(verdicts) == len(cases)
    return verdicts


def _cases(tmp_path: Path) -> dict[str, dict[str, Any]]:
    cases: dict[str, dict[str, Any]] = {}
    for fixture in sorted(FIXTURES.glob("*.jsonl")):
        copy = tmp_path / "fixtures" / fixture.name  # the plan's state dir goes beside it; the fixture stays clean
        copy.parent.mkdir(exist_ok=True)
        shutil.copy(fixture, copy)
        try:
            cases[fixture.name] = openclaw_summary(copy, keep_recent=KEEP_RECENT).to_json()
        except ValueError:
            continue  # nothing to summarize at this keep-recent budget
    simulated = run_simulation(tmp_path / "sim", pace=0, seed=11, window=64_000, max_turns=60)
    assert simulated.compactions >= 1  # the summary carries an earlier one forward
    cases["simulated"] = openclaw_summary(simulated.transcript, keep_recent=KEEP_RECENT).to_json()
    return cases


def test_ctxscope_summaries_pass_openclaws_quality_audit(openclaw_install: OpenClawInstall, tmp_path: Path) -> None:
    cases = _cases(tmp_path)
    assert len(cases) >= 5
    verdicts = dict(zip(cases, _audit(openclaw_install, list(cases.values())), strict=True))
    failed = {name: v["reasons"] for name, v in verdicts.items() if not v["ok"]}
    assert not failed, failed
    checked = sum(len(v["identifiers"]) for v in verdicts.values())
    assert checked >= 10  # the identifier rule was exercised, not vacuously met
    print(f"OpenClaw quality audit: {len(verdicts)} summaries passed, {checked} identifiers checked")


def test_the_audit_rejects_a_summary_missing_a_section_or_an_identifier(openclaw_install: OpenClawInstall,
                                                                       tmp_path: Path) -> None:
    cases = _cases(tmp_path)
    name, case = next((n, c) for n, c in cases.items() if n == "simulated")
    first = _audit(openclaw_install, [case])[0]
    assert first["ok"] and first["identifiers"], (name, first)
    identifier = first["identifiers"][0]
    no_section = {**case, "summary": case["summary"].replace("## Open TODOs", "## Todo")}
    no_identifier = {**case, "summary": case["summary"].replace(identifier, "…")}
    without_section, without_identifier = _audit(openclaw_install, [no_section, no_identifier])
    assert "missing_section:## Open TODOs" in without_section["reasons"]
    assert any(r.startswith("missing_identifiers:") for r in without_identifier["reasons"])
