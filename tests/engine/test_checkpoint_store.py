"""Checkpoint files on disk: layout, ids, retention, immutability, fallback, redaction, crash safety."""

from __future__ import annotations

import dataclasses
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.checkpoints.model import Checkpoint
from engine.checkpoints.store import LATEST_NAME, latest_checkpoint, list_checkpoints, read_checkpoint, write_checkpoint
from engine.checkpoints.yaml_io import dump_checkpoint, load_checkpoint
from engine.fs.audit import read_audit
from engine.fs.layout import checkpoints_root, safe_key, session_checkpoint_dir
from tests.engine._checkpoints import sample_checkpoint

KEY = "agent:main:telegram:user123"
REPO = Path(__file__).resolve().parents[2]

HOSTILE_KEYS = [
    "../../etc",
    "/abs",
    "/etc/passwd",
    "a/../../b",
    "..",
    ".",
    "...",
    "",
    "\x00",
    "a\x00b",
    "x" * 300,
    "é" * 300,
    "con",
    "CON.txt",
    "nul",
    "lpt1",
    "com9.yaml",
    "日本語のセッション",
    "😀",
    "a\\..\\..\\b",
    "a.",
    " ",
    "~",
    "-rf",
    ".hidden",
    "\ud800",
    "agent:main:main",
]


def _write(state: Path, n: int, key: str = KEY, retention: int = 5) -> list[Path]:
    return [write_checkpoint(state, key, sample_checkpoint(), retention=retention).path for _ in range(n)]


def _tree(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every path under ``root`` with its mtime and, for files, its bytes."""
    out = {}
    for path in sorted(root.rglob("*")):
        data = path.read_bytes() if path.is_file() else b""
        out[str(path.relative_to(root))] = (len(data), path.stat().st_mtime_ns, data)
    return out


class TestSafeKey:
    def test_ordinary_keys_are_sanitised_like_the_typescript_tool(self) -> None:
        assert safe_key("agent:main:main") == "agent_main_main"
        assert safe_key("telegram:user123") == "telegram_user123"
        assert safe_key("a.b_c-d") == "a.b_c-d"
        # JavaScript's replace() sees UTF-16 code units: one astral character is two underscores.
        assert safe_key("a😀b") == "a__b"
        assert safe_key("aéb") == "a_b"

    def test_unusable_names_are_escaped_distinctly(self) -> None:
        names = {safe_key(k) for k in (".", "..", "", "...", "con", "x" * 300, "x" * 301)}
        assert len(names) == 7
        assert all("~" in name for name in names)
        assert safe_key("con").startswith("con~")
        assert safe_key("x" * 300).startswith("x" * 64 + "~")
        assert safe_key(".") == safe_key(".")

    @pytest.mark.parametrize("key", HOSTILE_KEYS, ids=range(len(HOSTILE_KEYS)))
    def test_hostile_keys_write_into_one_direct_child(self, tmp_path: Path, key: str) -> None:
        state = tmp_path / "state"
        ref = write_checkpoint(state, key, sample_checkpoint())
        root = checkpoints_root(state).resolve()
        assert ref.path.resolve().parent.parent == root
        assert [p.name for p in root.iterdir()] == [safe_key(key)]
        assert {p.name for p in (tmp_path / "state").iterdir()} == {"context"}
        assert {p.name for p in (state / "context").iterdir()} == {"checkpoints", "audit.jsonl"}
        assert latest_checkpoint(state, key) is not None

    @settings(max_examples=500, deadline=None)
    @given(st.one_of(st.text(st.characters(exclude_categories=())), st.sampled_from(HOSTILE_KEYS)))
    def test_any_key_maps_to_a_single_safe_path_component(self, key: str) -> None:
        name = safe_key(key)
        root = Path("/state/context/checkpoints")
        assert re.fullmatch(r"[A-Za-z0-9._~-]+", name)
        assert name.strip(".") and not name.endswith(".")
        assert len(name.encode()) <= 255
        assert Path(os.path.normpath(root / name)).parent == root
        assert session_checkpoint_dir(Path("/state"), key) == root / name


class TestWrite:
    def test_ids_links_pointer_and_audit(self, tmp_path: Path) -> None:
        paths = _write(tmp_path, 3)
        assert [p.name for p in paths] == ["cp_001.yaml", "cp_002.yaml", "cp_003.yaml"]
        cps = [read_checkpoint(ref) for ref in list_checkpoints(tmp_path, KEY)]
        assert [c.meta.checkpoint_id for c in cps] == ["cp_001", "cp_002", "cp_003"]
        assert [c.meta.previous_checkpoint for c in cps] == [None, "cp_001", "cp_002"]
        pointer = orjson.loads((paths[0].parent / LATEST_NAME).read_bytes())
        assert pointer == {"checkpoint_id": "cp_003", "path": str(paths[2].absolute())}
        records = list(read_audit(tmp_path))
        assert [r.action for r in records] == ["checkpoint"] * 3
        assert records[-1].session_key == KEY
        assert records[-1].params == {"trigger": "auto-80pct", "retention": 5}
        assert records[-1].plan["checkpoint_id"] == "cp_003"
        assert records[-1].plan["previous_checkpoint"] == "cp_002"

    def test_callers_id_and_previous_are_replaced(self, tmp_path: Path) -> None:
        cp = sample_checkpoint(checkpoint_id="cp_777", previous_checkpoint="cp_776")
        ref = write_checkpoint(tmp_path, KEY, cp)
        written = read_checkpoint(ref)
        assert (written.meta.checkpoint_id, written.meta.previous_checkpoint) == ("cp_001", None)
        assert dataclasses.replace(written, meta=cp.meta) == cp

    def test_file_is_exactly_the_dump_of_the_stored_value(self, tmp_path: Path) -> None:
        ref = write_checkpoint(tmp_path, KEY, sample_checkpoint())
        assert ref.path.read_text("utf-8") == dump_checkpoint(read_checkpoint(ref))

    def test_numbering_grows_past_999(self, tmp_path: Path) -> None:
        first = write_checkpoint(tmp_path, KEY, sample_checkpoint()).path
        first.rename(first.with_name("cp_999.yaml"))
        ref = write_checkpoint(tmp_path, KEY, sample_checkpoint())
        assert ref.path.name == "cp_1000.yaml"
        assert [r.checkpoint_id for r in list_checkpoints(tmp_path, KEY)] == ["cp_999", "cp_1000"]
        assert read_checkpoint(ref).meta.previous_checkpoint == "cp_999"
        loaded = latest_checkpoint(tmp_path, KEY)
        assert loaded is not None and loaded.ref.number == 1000

    def test_non_canonical_names_are_ignored(self, tmp_path: Path) -> None:
        directory = write_checkpoint(tmp_path, KEY, sample_checkpoint()).path.parent
        for name in ("cp_0001.yaml", "cp_01.yaml", "cp_abc.yaml", "cp_002.yml", "notes.txt", "cp_002.yaml.bak"):
            (directory / name).write_text("garbage")
        assert [r.checkpoint_id for r in list_checkpoints(tmp_path, KEY)] == ["cp_001"]
        assert write_checkpoint(tmp_path, KEY, sample_checkpoint()).checkpoint_id == "cp_002"

    def test_invalid_checkpoint_is_refused_and_nothing_written(self, tmp_path: Path) -> None:
        bad = dataclasses.replace(
            sample_checkpoint(), working=dataclasses.replace(sample_checkpoint().working, status="busy")
        )
        with pytest.raises(ValueError, match=r"working\.status"):
            write_checkpoint(tmp_path, KEY, bad)
        assert list_checkpoints(tmp_path, KEY) == ()
        assert not (session_checkpoint_dir(tmp_path, KEY) / LATEST_NAME).exists()
        (record,) = read_audit(tmp_path)
        assert (record.action, record.result) == ("checkpoint", "failed")
        assert record.error is not None and "working.status" in record.error

    def test_retention_below_one_is_refused(self, tmp_path: Path) -> None:
        with pytest.raises(ValueError, match="retention"):
            write_checkpoint(tmp_path, KEY, sample_checkpoint(), retention=0)

    def test_concurrent_writers_never_share_a_number(self, tmp_path: Path) -> None:
        with ThreadPoolExecutor(4) as pool:
            for future in [pool.submit(_write, tmp_path, 8, retention=1000) for _ in range(4)]:
                future.result()
        refs = list_checkpoints(tmp_path, KEY)
        assert [r.number for r in refs] == list(range(1, 33))
        assert [read_checkpoint(r).meta.previous_checkpoint for r in refs[1:]] == [r.checkpoint_id for r in refs[:-1]]


class TestRetention:
    def test_keeps_the_last_five_and_never_modifies_a_written_file(self, tmp_path: Path) -> None:
        seen: dict[str, tuple[int, int, int, bytes]] = {}
        for _ in range(12):
            ref = write_checkpoint(tmp_path, KEY, sample_checkpoint())
            st_ = ref.path.stat()
            seen[ref.path.name] = (st_.st_ino, st_.st_mtime_ns, st_.st_size, ref.path.read_bytes())
            for name, before in seen.items():
                path = ref.path.parent / name
                if path.exists():
                    st_ = path.stat()
                    assert (st_.st_ino, st_.st_mtime_ns, st_.st_size, path.read_bytes()) == before, name
        assert [r.number for r in list_checkpoints(tmp_path, KEY)] == [8, 9, 10, 11, 12]
        deleted = [n for r in read_audit(tmp_path) for n in r.plan["deleted"]]
        assert deleted == [f"cp_{n:03d}" for n in range(1, 8)]

    def test_retention_is_configurable(self, tmp_path: Path) -> None:
        _write(tmp_path, 4, retention=2)
        assert [r.number for r in list_checkpoints(tmp_path, KEY)] == [3, 4]

    def test_sessions_are_independent(self, tmp_path: Path) -> None:
        _write(tmp_path, 3, key="a")
        _write(tmp_path, 1, key="b")
        assert len(list_checkpoints(tmp_path, "a")) == 3
        assert [r.checkpoint_id for r in list_checkpoints(tmp_path, "b")] == ["cp_001"]


@pytest.fixture
def copied_store(tmp_path: Path) -> Path:
    """Four checkpoints written in one state dir, then copied to another that the test may damage."""
    original = tmp_path / "original"
    _write(original, 4)
    copy = tmp_path / "copy"
    shutil.copytree(original, copy)
    return copy


def _cp_file(state: Path, n: int) -> Path:
    return session_checkpoint_dir(state, KEY) / f"cp_{n:03d}.yaml"


class TestLatest:
    def test_latest_is_the_newest_file(self, copied_store: Path) -> None:
        loaded = latest_checkpoint(copied_store, KEY)
        assert loaded is not None
        assert loaded.ref.checkpoint_id == "cp_004"
        assert loaded.skipped == () and loaded.pointer_problem is None
        assert loaded.text == _cp_file(copied_store, 4).read_text("utf-8")
        assert loaded.checkpoint == load_checkpoint(loaded.text)

    def test_none_without_checkpoints_and_nothing_created(self, tmp_path: Path) -> None:
        assert latest_checkpoint(tmp_path, KEY) is None
        assert list_checkpoints(tmp_path, KEY) == ()
        assert list(tmp_path.iterdir()) == []

    def test_corrupt_latest_falls_back_to_previous(self, copied_store: Path) -> None:
        _cp_file(copied_store, 4).write_text("schema: [unclosed\n")
        loaded = latest_checkpoint(copied_store, KEY)
        assert loaded is not None and loaded.ref.checkpoint_id == "cp_003"
        ((skip,),) = [loaded.skipped]
        assert skip.ref.checkpoint_id == "cp_004" and skip.reason.startswith("yaml:")
        original = latest_checkpoint(copied_store.parent / "original", KEY)
        assert original is not None and original.ref.checkpoint_id == "cp_004"

    def test_invalid_file_is_skipped_with_its_problems(self, copied_store: Path) -> None:
        path = _cp_file(copied_store, 4)
        path.write_text(path.read_text("utf-8").replace('"in_progress"', '"busy"'))
        loaded = latest_checkpoint(copied_store, KEY)
        assert loaded is not None and loaded.ref.checkpoint_id == "cp_003"
        assert "working.status" in loaded.skipped[0].reason

    def test_previous_checkpoint_link_is_followed(self, copied_store: Path) -> None:
        path = _cp_file(copied_store, 4)
        text = path.read_text("utf-8").replace('"in_progress"', '"busy"')
        path.write_text(text.replace('previous_checkpoint: "cp_003"', 'previous_checkpoint: "cp_002"'))
        loaded = latest_checkpoint(copied_store, KEY)
        assert loaded is not None and loaded.ref.checkpoint_id == "cp_002"
        assert [s.ref.checkpoint_id for s in loaded.skipped] == ["cp_004"]

    def test_newest_valid_file_when_the_chain_breaks(self, copied_store: Path) -> None:
        _cp_file(copied_store, 4).write_bytes(b"\xff\xfe not utf-8")
        _cp_file(copied_store, 3).write_text("")
        loaded = latest_checkpoint(copied_store, KEY)
        assert loaded is not None and loaded.ref.checkpoint_id == "cp_002"
        assert [s.ref.checkpoint_id for s in loaded.skipped] == ["cp_004", "cp_003"]
        assert "not UTF-8" in loaded.skipped[0].reason

    def test_file_claiming_another_id_is_skipped(self, copied_store: Path) -> None:
        shutil.copyfile(_cp_file(copied_store, 3), _cp_file(copied_store, 4))
        loaded = latest_checkpoint(copied_store, KEY)
        assert loaded is not None and loaded.ref.checkpoint_id == "cp_003"
        assert "cp_003" in loaded.skipped[0].reason

    def test_all_corrupt_is_none(self, copied_store: Path) -> None:
        for n in range(1, 5):
            _cp_file(copied_store, n).write_text("- not a mapping\n")
        assert latest_checkpoint(copied_store, KEY) is None

    @pytest.mark.parametrize(
        ("content", "problem"),
        [
            (None, "missing"),
            (b"\x00garbage{", "not JSON"),
            (b'["cp_004"]', "no valid checkpoint_id"),
            (b'{"checkpoint_id": "../../etc/passwd", "path": "/etc/passwd"}', "no valid checkpoint_id"),
            (b'{"checkpoint_id": "cp_009", "path": "x"}', "missing cp_009"),
            (b'{"checkpoint_id": "cp_002", "path": "/elsewhere/cp_002.yaml"}', "cp_004 is newer"),
        ],
    )
    def test_bad_pointer_is_reported_and_the_dir_scanned(
        self, copied_store: Path, content: bytes | None, problem: str
    ) -> None:
        pointer = session_checkpoint_dir(copied_store, KEY) / LATEST_NAME
        if content is None:
            pointer.unlink()
        else:
            pointer.write_bytes(content)
        loaded = latest_checkpoint(copied_store, KEY)
        assert loaded is not None and loaded.ref.checkpoint_id == "cp_004"
        assert loaded.pointer_problem is not None and problem in loaded.pointer_problem

    def test_write_repairs_a_corrupt_pointer(self, copied_store: Path) -> None:
        pointer = session_checkpoint_dir(copied_store, KEY) / LATEST_NAME
        pointer.write_bytes(b"{")
        ref = write_checkpoint(copied_store, KEY, sample_checkpoint())
        assert orjson.loads(pointer.read_bytes())["checkpoint_id"] == ref.checkpoint_id == "cp_005"


class TestReadsNeverWrite:
    def test_reads_leave_every_byte_and_mtime_alone(self, copied_store: Path) -> None:
        directory = session_checkpoint_dir(copied_store, KEY)
        (directory / ".cp_005.yaml.999999.tmp").write_text("half a checkp")
        _cp_file(copied_store, 4).write_text("broken: [")
        before = _tree(copied_store)
        refs = list_checkpoints(copied_store, KEY)
        for ref in refs[:-1]:
            read_checkpoint(ref)
        assert latest_checkpoint(copied_store, KEY) is not None
        assert latest_checkpoint(copied_store, "never-written") is None
        assert _tree(copied_store) == before

    def test_stale_temp_files_are_removed_by_the_next_write(self, copied_store: Path) -> None:
        directory = session_checkpoint_dir(copied_store, KEY)
        stale = [directory / ".cp_005.yaml.999999.tmp", directory / "._latest.json.999999.tmp"]
        for path in stale:
            path.write_text("partial")
        foreign = directory / ".cp_notes.tmp"
        foreign.write_text("not ours")
        ref = write_checkpoint(copied_store, KEY, sample_checkpoint())
        assert ref.checkpoint_id == "cp_005"
        assert not any(p.exists() for p in stale)
        assert foreign.exists()


SECRETS = {
    "openai": "sk-proj-Zx81Ka0Qm2Lr5Tn7Vb9Wc3Yd6Fe4Gh1Jk0",
    "anthropic": "sk-ant-api03-Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc",
    "aws": "AKIAZ7Q3R5T8V2W4X6Y9",
    "github": "ghp_R8s2T4u6V8w0X2y4Z6a8B0c2D4e6F8g0H2i4",
    "bearer": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "password": "correct-Horse-battery-staple-42",
    "slack": "xoxb-2048-4096-Ab12Cd34Ef56Gh78",
    "gitlab": "glpat-Kq2Wm4Xr6Ty8Uz0Ab1Cd",
}


def _planted() -> Checkpoint:
    base = sample_checkpoint()
    s = SECRETS
    return dataclasses.replace(
        base,
        working=dataclasses.replace(
            base.working,
            topic=f"Rotate the key {s['openai']} used by billing",
            last_tool_call=dataclasses.replace(
                base.working.last_tool_call,  # type: ignore[arg-type]
                params_summary=f"command=curl -H 'Authorization: Bearer {s['bearer']}' https://api",
            ),
            next_action=f"export ANTHROPIC_API_KEY={s['anthropic']}\nthen rerun",
        ),
        decisions=(*base.decisions[:1], dataclasses.replace(base.decisions[1], what=f"Use {s['aws']} for S3")),
        resources=dataclasses.replace(base.resources, files_read=(f"https://x.test/?token={s['github']}",)),
        thread=dataclasses.replace(
            base.thread,
            key_exchanges=(
                *base.thread.key_exchanges[:1],
                dataclasses.replace(base.thread.key_exchanges[1], gist=f"password: {s['password']}"),
            ),
        ),
        open_items=(f"Slack bot token {s['slack']} leaked in CI logs",),
        learnings=(f"GitLab token is {s['gitlab']}",),
    )


def test_planted_secrets_never_reach_the_disk(tmp_path: Path) -> None:
    ref = write_checkpoint(tmp_path, KEY, _planted())
    on_disk = b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    for name, secret in SECRETS.items():
        assert secret.encode() not in on_disk, name
    written = read_checkpoint(ref)
    assert written.working.topic == "Rotate the key [REDACTED:openai-key] used by billing"
    assert written.working.next_action == "export ANTHROPIC_API_KEY=[REDACTED:anthropic-key]\nthen rerun"
    assert "Authorization: Bearer [REDACTED:jwt]'" in written.working.last_tool_call.params_summary  # type: ignore[union-attr]
    assert written.learnings == ("GitLab token is [REDACTED:gitlab-token]",)
    assert written.thread.key_exchanges[1].gist == "password: [REDACTED:password]"
    (record,) = read_audit(tmp_path)
    assert record.plan["redactions"] == len(SECRETS)


# A writer that loops until killed; its checkpoint varies in size so kills land at different offsets.
_CHILD = """
import dataclasses, random, sys
from pathlib import Path
from engine.checkpoints.store import write_checkpoint
from engine.checkpoints.yaml_io import load_checkpoint
state, base, rng = Path(sys.argv[1]), load_checkpoint(Path(sys.argv[2]).read_text("utf-8")), random.Random(sys.argv[3])
print("ready", flush=True)
while True:
    extra = tuple("learning %d %s" % (i, "z" * rng.randrange(300)) for i in range(rng.randrange(40)))
    write_checkpoint(state, sys.argv[4], dataclasses.replace(base, learnings=extra), retention=3)
"""


def _check_store(state: Path) -> tuple[int, int]:
    """Assert every checkpoint file is valid and the pointer names one; return (files, temp files)."""
    directory = session_checkpoint_dir(state, KEY)
    refs = list_checkpoints(state, KEY)
    for ref in refs:
        assert read_checkpoint(ref).meta.checkpoint_id == ref.checkpoint_id
    pointer = directory / LATEST_NAME
    if pointer.exists():
        obj = orjson.loads(pointer.read_bytes())
        target = directory / Path(obj["path"]).name
        assert target.name == f"{obj['checkpoint_id']}.yaml"
        assert read_checkpoint(next(r for r in refs if r.path == target)).meta.checkpoint_id == obj["checkpoint_id"]
    audit = state / "context" / "audit.jsonl"
    for line in audit.read_bytes().splitlines() if audit.exists() else ():
        orjson.loads(line)
    temps = sum(1 for p in directory.iterdir() if p.name.endswith(".tmp")) if directory.exists() else 0
    return len(refs), temps


@pytest.mark.reliability
@pytest.mark.slow
def test_sigkill_during_writes_never_leaves_a_corrupt_checkpoint(tmp_path: Path) -> None:
    trials = int(os.environ.get("CTXSCOPE_TRIALS") or (1000 if os.environ.get("CTXSCOPE_FULL") else 40))
    state = tmp_path / "state"
    template = tmp_path / "template.yaml"
    template.write_text(dump_checkpoint(sample_checkpoint()), "utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    rng = random.Random(20260224)
    mid_write = 0
    for trial in range(trials):
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(state), str(template), str(trial), KEY],
            stdout=subprocess.PIPE,
            env=env,
            cwd=REPO,
        )
        assert child.stdout is not None
        assert child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0, 0.03))  # where in the write loop the kill lands; nothing is timed
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        assert child.returncode == -signal.SIGKILL
        _, temps = _check_store(state)
        mid_write += temps > 0
    files, _ = _check_store(state)
    last = list_checkpoints(state, KEY)[-1].number if files else 0
    ref = write_checkpoint(state, KEY, sample_checkpoint(), retention=3)
    assert ref.number == last + 1
    assert _check_store(state) == (3, 0)
    print(f"\nkill -9 trials: {trials}, left a temp file (killed mid-write): {mid_write}, checkpoints written: {last}")
    assert last > 0  # the children really were writing when killed
