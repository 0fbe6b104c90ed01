"""Every ctxscope write (four compaction layers, prune, inject) leaves a file the real pi loads as is.

On copies of six sessions: pi opens the written file the way ``pi --session`` does and must not rewrite it; after
a compaction pi's context starts with ctxscope's summary and keeps exactly the plan's kept messages; after an
inject pi's context is the previous one plus the injected message.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.realagents.pi import ctxscope_side
from tests.realagents.pi.compare import TALLY
from tests.realagents.pi.corpora import Sample
from tests.realagents.pi.pi_agent import PiInstall

pytestmark = pytest.mark.realagents

SESSIONS = (
    ("fixtures", "42naodia__moltbot-config__76cc5ab5-0425-4038-b41f-0af9f313d594.jsonl"),
    ("fixtures", "bhagya554__AITesterBlueprint_OpenClawMasterClass__3003a4e2-a8c1-417d-9ebc-76480d47d0c0.jsonl"),
    ("generated", "gen-01.jsonl"),
    ("generated", "gen-02.jsonl"),
    ("generated", "gen-05.jsonl"),
    ("generated", "gen-10.jsonl"),
)
OPS = ("summarize", "full", "drop-only", "auto", "prune", "inject")
KEEP = 2000


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _last_json(text: str) -> dict[str, Any]:
    # --json prints one object; warnings go to stderr, but be tolerant of trailing lines.
    result: dict[str, Any] = json.loads(text[: text.rindex("}") + 1])
    return result


def _write(path: Path, op: str) -> dict[str, Any]:
    if op == "inject":
        made = ctxscope_side.run(["checkpoint", str(path), "--json"])
        assert made.returncode == 0, made.stderr
        proc = ctxscope_side.run(["inject", str(path), "--yes"])
        assert proc.returncode == 0, proc.stderr
        return {}
    args = ["prune", str(path)] if op == "prune" else ["compact", str(path), "--layer", op]
    proc = ctxscope_side.run([*args, "--yes", "--json", "--keep-recent", str(KEEP)])
    assert proc.returncode == 0, f"ctxscope {op} exited {proc.returncode}: {proc.stderr}"
    return _last_json(proc.stdout)


@pytest.fixture(scope="module")
def written(
    pi: PiInstall, samples: dict[str, list[Sample]], tmp_path_factory: pytest.TempPathFactory, isolated_env: Path
) -> dict[tuple[str, str], dict[str, Any]]:
    """Apply every op to a fresh copy of every session; then open all copies in pi (persisting) at once."""
    root = tmp_path_factory.mktemp("pi-writes")
    workspace = root / "workspace"
    workspace.mkdir()
    config_dir = isolated_env / "XDG_CONFIG_HOME" / "ctxscope"
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "config.yaml").write_text(f"compaction:\n  workspace: {workspace}\n")
    by_name = {(s.corpus, s.name): s for corpus in samples.values() for s in corpus}
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for key in SESSIONS:
        sample = by_name[key]
        for op in OPS:
            copy = root / f"{op}-{sample.path.name}"
            shutil.copyfile(sample.path, copy)
            result = _write(copy, op)
            out[(sample.name, op)] = {"path": copy, "result": result, "sha": _sha(copy), "before": sample.pi}
    opened = pi.oracle([w["path"] for w in out.values()], persist=True)
    for w in out.values():
        w["pi"] = opened[str(w["path"])]
        w["sha_after_pi"] = _sha(w["path"])
    return out


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("session", [name for _, name in SESSIONS], ids=lambda n: n[-20:])
def test_pi_loads_the_written_file_unchanged(written: dict[tuple[str, str], Any], session: str, op: str) -> None:
    w = written[(session, op)]
    TALLY.add("write.loads_unchanged", w["sha"] == w["sha_after_pi"])
    assert w["pi"]["valid"]
    assert w["sha"] == w["sha_after_pi"], "pi rewrote the file when it opened it"


@pytest.mark.parametrize("op", [op for op in OPS if op != "inject"])
@pytest.mark.parametrize("session", [name for _, name in SESSIONS], ids=lambda n: n[-20:])
def test_pi_context_is_the_plan(written: dict[tuple[str, str], Any], session: str, op: str) -> None:
    w = written[(session, op)]
    plan, result = w["result"]["plan"], w["result"]["result"]
    context = [(m["id"], m["role"]) for m in w["pi"]["context"]]
    compaction_id = result["entry_ids"][0]
    after = [i for i in result["entry_ids"][1:] if i in {c[0] for c in context}]
    expected_ids = [compaction_id, *plan["kept_ids"], *after]
    TALLY.add("write.context_starts_with_summary", context[:1] == [(compaction_id, "compactionSummary")])
    TALLY.add("write.kept_ids", [c[0] for c in context] == expected_ids)
    assert context[0] == (compaction_id, "compactionSummary")
    assert [c[0] for c in context] == expected_ids
    assert w["pi"]["leaf_id"] == result["entry_ids"][-1]


@pytest.mark.parametrize("session", [name for _, name in SESSIONS], ids=lambda n: n[-20:])
def test_pi_context_gains_the_injected_message(written: dict[tuple[str, str], Any], session: str) -> None:
    w = written[(session, "inject")]
    before = [m["id"] for m in w["before"]["context"]]
    after = w["pi"]["context"]
    TALLY.add("write.inject", [m["id"] for m in after[:-1]] == before and after[-1]["role"] == "custom")
    assert [m["id"] for m in after[:-1]] == before
    assert after[-1]["role"] == "custom" and after[-1]["sent"]
    assert w["pi"]["leaf_id"] == after[-1]["id"]


def test_pi_next_compaction_keeps_ctxscope_file_lists(
    pi: PiInstall, written: dict[tuple[str, str], Any], tmp_path: Path
) -> None:
    with_files = [w for (_, op), w in written.items() if op == "summarize" and w["result"]["plan"]["read_files"]]
    assert with_files, "no session with read files"
    copies = []
    for i, w in enumerate(with_files):
        copy = tmp_path / f"next-{i}.jsonl"
        shutil.copyfile(w["path"], copy)
        leaf = w["pi"]["leaf_id"]
        # One more turn as pi writes it, so the path no longer ends on the compaction.
        lines = [
            {
                "type": "message",
                "id": "n0000001",
                "parentId": leaf,
                "timestamp": "2030-01-01T00:00:00.000Z",
                "message": {"role": "user", "content": [{"type": "text", "text": "go on"}], "timestamp": 1},
            },
            {
                "type": "message",
                "id": "n0000002",
                "parentId": "n0000001",
                "timestamp": "2030-01-01T00:00:01.000Z",
                "message": {
                    "role": "assistant",
                    "content": [{"type": "text", "text": "ok"}],
                    "api": "x",
                    "provider": "x",
                    "model": "x",
                    "stopReason": "stop",
                    "timestamp": 2,
                    "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2},
                },
            },
        ]
        with copy.open("a") as fh:
            fh.writelines(json.dumps(line, separators=(",", ":")) + "\n" for line in lines)
        copies.append((copy, w["result"]["plan"]))
    reports = pi.oracle([c for c, _ in copies])
    for copy, plan in copies:
        cut = reports[str(copy)]["cut_points"]["2000"]
        assert cut is not None
        assert set(plan["read_files"]) <= set(cut["read_files"]) | set(cut["edited_files"])
