"""Integrity of the real-transcript development corpus in tests/data/real/ (issue 24).

The corpus is data the capture benchmark folds by repository, so a broken chain, a label that does not match its
schema, an identifier that is not in its transcript or an index that disagrees with the files would silently skew
every figure measured on it. Nothing here runs the extractor: the labels must stay independent of it.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REAL = Path(__file__).parent / "real"
INDEX = json.loads((REAL / "index.json").read_text(encoding="utf-8"))
SESSIONS: list[dict[str, Any]] = INDEX["sessions"]
ROLES = {"user", "assistant", "toolResult"}
ITEM_KINDS = ("decisions", "constraints", "open_items", "facts")
LABEL_KEYS = {
    "transcript",
    "decisions",
    "acceptable_decisions",
    "constraints",
    "acceptable_constraints",
    "open_items",
    "acceptable_open_items",
    "identifiers",
    "facts",
    "acceptable_facts",
    "ambiguity",
}
HELD_OUT_OWNERS = {"simbolico", "politipo"}
COUNTED = ("decisions", "constraints", "open_items", "identifiers", "facts")


def _entries(name: str) -> list[dict[str, Any]]:
    lines = (REAL / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def _strings(value: object) -> Iterator[str]:
    """Every string inside a tool call's arguments (they are free-form JSON)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _transcript_text(entries: list[dict[str, Any]]) -> str:
    parts: list[str] = []
    for e in entries[1:]:
        for block in e["message"]["content"]:
            for key in ("text", "thinking"):
                if isinstance(block.get(key), str):
                    parts.append(block[key])
            if block.get("type") == "toolCall":
                parts.extend(_strings(block.get("arguments")))
    return "\n".join(parts)


def _labels(session: dict[str, Any]) -> dict[str, Any]:
    return json.loads((REAL / session["labels"]).read_text(encoding="utf-8"))


def test_index_lists_exactly_the_files_in_the_folder() -> None:
    files = {s["file"] for s in SESSIONS}
    labels = {s["labels"] for s in SESSIONS}
    assert files == {p.name for p in REAL.glob("*.jsonl")}
    assert labels == {p.name for p in REAL.glob("*.labels.json")}
    assert len(files) == len(SESSIONS), "a session is listed twice"
    for s in SESSIONS:
        assert s["labels"] == s["file"].removesuffix(".jsonl") + ".labels.json"


def test_corpus_is_big_enough_and_spread_over_repositories() -> None:
    assert len(SESSIONS) >= 30
    assert len({s["repository"] for s in SESSIONS}) >= 10


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s["file"])
def test_repository_owner_is_outside_the_held_out_range(session: dict[str, Any]) -> None:
    repo = session["repository"]
    assert re.fullmatch(r"[^/\s]+/[^/\s]+", repo), repo
    owner, name = repo.lower().split("/")
    # Owners starting a-m are held out to measure the project; these two are held out by name.
    assert re.match(r"[n-z0-9]", owner), f"{repo}: owner must start with n-z or a digit"
    assert owner not in HELD_OUT_OWNERS and name not in HELD_OUT_OWNERS
    assert re.fullmatch(r"[0-9a-f]{40}", session["commit"]), "provenance needs the full commit id"
    assert session["path"] and session["licence"] and session["source_format"] and session["agent"]


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s["file"])
def test_session_is_pi_jsonl_v3_with_a_chained_entry_list(session: dict[str, Any]) -> None:
    entries = _entries(session["file"])
    header = entries[0]
    assert header["type"] == "session" and header["version"] == 3
    assert header["id"] and header["cwd"] and header["timestamp"]
    parent = None
    seen: set[str] = set()
    calls: set[str] = set()
    for e in entries[1:]:
        assert e["type"] == "message"
        assert e["id"] not in seen, f"duplicate id {e['id']}"
        assert e["parentId"] == parent, f"{e['id']} is not chained to {parent}"
        seen.add(e["id"])
        parent = e["id"]
        msg = e["message"]
        assert msg["role"] in ROLES
        assert isinstance(msg["content"], list) and msg["content"]
        assert isinstance(msg["timestamp"], int)
        if msg["role"] == "assistant":
            assert msg["model"] and msg["provider"] and "usage" in msg
            calls.update(b["id"] for b in msg["content"] if b.get("type") == "toolCall")
        if msg["role"] == "toolResult":
            assert msg["toolCallId"] in calls, "a tool result answers a call made earlier"
    roles = [e["message"]["role"] for e in entries[1:]]
    assert roles.count("user") == session["user_messages"]
    assert len(entries) - 1 == session["entries"]


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s["file"])
def test_labels_match_the_schema_and_the_index(session: dict[str, Any]) -> None:
    labels = _labels(session)
    assert set(labels) == LABEL_KEYS
    assert labels["transcript"] == session["file"]
    assert isinstance(labels["ambiguity"], str) and labels["ambiguity"].strip()
    ids: set[str] = set()
    for kind in ITEM_KINDS:
        for listed in (kind, "acceptable_" + kind):
            for item in labels[listed]:
                assert set(item) <= {"id", "text", "keys", "by"}, item
                assert item["id"] not in ids, f"duplicate label id {item['id']}"
                ids.add(item["id"])
                assert isinstance(item["text"], str) and item["text"].strip()
                assert item["keys"], f"{item['id']} has no key"
                for alternative in item["keys"]:
                    assert alternative and all(isinstance(t, str) and t.strip() for t in alternative), item["id"]
                if listed == "decisions":
                    assert item.get("by"), f"{item['id']}: a decision says who made it"
    assert all(isinstance(i, str) and i for i in labels["identifiers"])
    assert {k: len(labels[k]) for k in COUNTED} == session["counts"]


@pytest.mark.parametrize("session", SESSIONS, ids=lambda s: s["file"])
def test_every_identifier_occurs_verbatim_in_its_transcript(session: dict[str, Any]) -> None:
    text = _transcript_text(_entries(session["file"]))
    missing = [i for i in _labels(session)["identifiers"] if i not in text]
    assert not missing, f"not verbatim in {session['file']}: {missing}"


def _converter() -> ModuleType:
    spec = importlib.util.spec_from_file_location("real_corpus_convert", REAL / "convert.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_converter_keeps_turns_quoted_inside_nested_fences_and_reads_legacy_title_dates(tmp_path: Path) -> None:
    # A Cursor export nests fences (````diff holding a ```diff line); a toggling tracker closed the outer fence there
    # and took the quoted role header below for a real turn.
    src = tmp_path / "legacy.md"
    src.write_text(
        "## SpecStory\n\n## Title (2/12/2025, 10:20:12 PM)\n\n_**User**_\n\nfix it\n\n---\n\n_**Assistant**_\n\n"
        "````diff:a.md\n```diff:a.md\n_**User**_\n````\n\ndone\n\n---\n\n_**User**_\n\nthanks\n\n---\n",
        encoding="utf-8",
    )
    conv = _converter()
    w = conv.convert_specstory(str(src), "cursor-agent-unknown", "/unknown")
    users = [e["message"]["content"][0]["text"] for e in w.entries if e["message"]["role"] == "user"]
    assert users == ["fix it", "thanks"]
    assert w.header["timestamp"] == "2025-02-12T22:20:12.000Z"


def _group_apart(name: str, sessions: int, repositories: int) -> list[dict[str, Any]]:
    """The sessions of group ``name``, after checking it is big enough and shares no repository or owner with any
    other group: folds grouped by repository (and rules written from other groups) never see it."""
    group = [s for s in SESSIONS if s.get("group") == name]
    repos = {s["repository"] for s in group}
    other_repos = {s["repository"] for s in SESSIONS if s.get("group") != name}
    assert len(group) >= sessions and len(repos) >= repositories
    assert not repos & other_repos
    assert not {r.split("/")[0].lower() for r in repos} & {r.split("/")[0].lower() for r in other_repos}
    return group


def test_fresh_group_is_held_out_by_repository() -> None:
    # The fresh group is measured once, untuned: no repository in it may also feed the development sessions,
    # or folds grouped by repository would leak tuning into it.
    _group_apart("fresh", 12, 5)


def test_new_group_is_held_out_by_repository_and_owner() -> None:
    # The new group is one more untuned measurement: it shares no repository or owner with the development sessions
    # or the fresh group, so no rule written for them was written with it in view.
    _group_apart("new", 10, 5)


def test_lang_group_is_held_out_and_not_english() -> None:
    # The lang group measures capture on users who do not write English (README.md, "The lang group"): it shares no
    # repository or owner with the other sessions, and every session in it is in another language.
    assert all(s["language"] != "en" for s in _group_apart("lang", 6, 2))


@pytest.mark.parametrize(("name", "sessions"), [("native2", 8), ("native3", 7)])
def test_native_groups_are_apart_and_native_claude_code_or_codex(name: str, sessions: int) -> None:
    # The native2 and native3 groups are untuned measurements on the transcripts ctxscope's users produce (README.md,
    # "The native2 group", "The native3 group"): native Claude Code JSONL or Codex rollouts, real multi-turn work,
    # from repositories and owners no other group holds. The native3 search found seven sessions (README.md says why).
    group = _group_apart(name, sessions, 4)
    assert all(s["source_format"] in {"claude-code-jsonl", "codex-jsonl"} for s in group)
    assert all(s["user_messages"] >= 6 for s in group)


def test_native4_group_is_apart_english_and_native_claude_code_and_codex() -> None:
    # The native4 group measured this session's capture work once, untuned, then joined the development set
    # (README.md, "The native4 group"): English users of Claude Code and Codex, real multi-turn work, from
    # repositories and owners no other group holds.
    group = _group_apart("native4", 8, 4)
    assert all(s["language"] == "en" and s["user_messages"] >= 6 for s in group)
    assert {"claude-code-jsonl", "codex-jsonl"} == {s["source_format"] for s in group}


def test_ko_group_is_korean_and_shares_nothing_with_the_held_out_korean_group() -> None:
    # The ko group (README.md, "The ko group") is development data for reading Korean: Korean sessions from owners no
    # other group holds, so a rule written from it cannot have seen the held-out lang group's Korean users.
    assert all(s["language"] == "ko" for s in _group_apart("ko", 4, 2))


def test_converter_reads_a_gemini_cli_session_document() -> None:
    # Gemini CLI keeps one JSON document per session: typed messages are `user`, each `gemini` reply carries its
    # thoughts, text and tool calls (with their results inside), and `info` records are the CLI's own notices.
    doc = {
        "sessionId": "g1",
        "projectHash": "h",
        "messages": [
            {"id": "1", "timestamp": "2026-03-13T08:26:04.442Z", "type": "user", "content": [{"text": "고쳐줘"}]},
            {
                "id": "2",
                "timestamp": "2026-03-13T08:27:00.000Z",
                "type": "gemini",
                "content": "확인하겠습니다.",
                "thoughts": [{"subject": "Plan", "description": "read first"}],
                "model": "gemini-3-flash-preview",
                "toolCalls": [
                    {
                        "id": "c1",
                        "name": "read_file",
                        "args": {"file_path": "a.py"},
                        "status": "success",
                        "result": [{"functionResponse": {"id": "c1", "response": {"output": "print(1)"}}}],
                    }
                ],
            },
            {"id": "3", "timestamp": "2026-03-13T08:28:00.000Z", "type": "info", "content": "Request cancelled."},
        ],
    }
    w = _converter().convert_gemini(doc, None)
    msgs = [e["message"] for e in w.entries]
    assert [m["role"] for m in msgs] == ["user", "assistant", "toolResult"]
    assert msgs[0]["content"][0]["text"] == "고쳐줘"
    assert [b["type"] for b in msgs[1]["content"]] == ["thinking", "text", "toolCall"]
    assert msgs[1]["model"] == "gemini-3-flash-preview"
    assert msgs[2]["toolCallId"] == "c1" and msgs[2]["content"][0]["text"] == "print(1)"
    assert w.header["id"] == "g1"


def test_converter_puts_a_tool_result_written_before_its_call_after_that_call(tmp_path: Path) -> None:
    # d97: Claude Code wrote the result of a Read one line before the last record of the reply that made the call; kept
    # in file order the reply split in two and the result answered a call not made yet.
    def rec(kind: str, uid: str, content: list[dict], mid: str | None = None) -> dict:
        message: dict[str, Any] = {"role": kind, "content": content}
        if mid:
            message.update(id=mid, model="claude-opus-4-8")
        ts = "2026-06-08T02:23:53.000Z"
        return {"type": kind, "uuid": uid, "timestamp": ts, "sessionId": "s", "message": message}

    rows = [
        rec("user", "u1", [{"type": "text", "text": "make the ui better"}]),
        rec("assistant", "a1", [{"type": "thinking", "thinking": "read layout"}], "m1"),
        rec("user", "u2", [{"type": "tool_result", "tool_use_id": "t1", "content": "layout.tsx body"}]),
        rec("assistant", "a2", [{"type": "text", "text": "Reading the layout."}], "m1"),
        rec("assistant", "a3", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "l.tsx"}}], "m1"),
        rec("assistant", "a4", [{"type": "text", "text": "Done."}], "m2"),
    ]
    src = tmp_path / "s.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    msgs = [e["message"] for e in _converter().convert_claude_code(str(src), None).entries]
    assert [m["role"] for m in msgs] == ["user", "assistant", "toolResult", "assistant"]
    assert [b["type"] for b in msgs[1]["content"]] == ["thinking", "text", "toolCall"]
    assert msgs[2]["toolCallId"] == "t1" and msgs[2]["toolName"] == "Read"


def test_converter_drops_a_tool_result_whose_call_is_in_an_earlier_transcript(tmp_path: Path) -> None:
    # d103: a resumed Claude Code session file opens with the result of a Bash call made in the previous file; held
    # for a call that never comes, it was written at the end of the session as a result answering nothing.
    rows = [
        {"type": "user", "uuid": "u0", "timestamp": "2025-10-09T16:40:00.000Z", "sessionId": "s",
         "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t0", "content": "husky"}]}},
        {"type": "user", "uuid": "u1", "timestamp": "2025-10-09T16:41:00.000Z", "sessionId": "s",
         "message": {"role": "user", "content": "deploy it"}},
        {"type": "assistant", "uuid": "a1", "timestamp": "2025-10-09T16:42:00.000Z", "sessionId": "s",
         "message": {"role": "assistant", "id": "m1", "model": "claude-sonnet-4-5-20250929",
                     "content": [{"type": "text", "text": "Deploying."}]}},
    ]
    src = tmp_path / "s.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    msgs = [e["message"] for e in _converter().convert_claude_code(str(src), None).entries]
    assert [m["role"] for m in msgs] == ["user", "assistant"]


def test_converter_reads_a_codex_rollout_from_its_response_items(tmp_path: Path) -> None:
    # event_msg records repeat the conversation for Codex's UI and developer messages are its own instructions;
    # only response_item records are the conversation, and a call's output answers the call made before it.
    rows = [
        {
            "timestamp": "2026-06-29T06:15:20.000Z",
            "type": "session_meta",
            "payload": {"id": "s1", "timestamp": "2026-06-29T06:15:20.000Z", "cwd": "D:\\p"},
        },
        {"timestamp": "2026-06-29T06:15:21.000Z", "type": "turn_context", "payload": {"model": "gpt-5.5"}},
        {
            "timestamp": "2026-06-29T06:15:22.000Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]},
        },
        {
            "timestamp": "2026-06-29T06:15:23.000Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix it"}]},
        },
        {
            "timestamp": "2026-06-29T06:15:23.500Z",
            "type": "event_msg",
            "payload": {"type": "user_message", "message": "fix it"},
        },
        {
            "timestamp": "2026-06-29T06:15:24.000Z",
            "type": "response_item",
            "payload": {"type": "reasoning", "summary": [{"type": "summary_text", "text": "look first"}]},
        },
        {
            "timestamp": "2026-06-29T06:15:25.000Z",
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell_command",
                "arguments": '{"command": "ls"}',
                "call_id": "c1",
            },
        },
        {
            "timestamp": "2026-06-29T06:15:26.000Z",
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c1", "output": "a.py"},
        },
        {
            "timestamp": "2026-06-29T06:15:27.000Z",
            "type": "response_item",
            "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]},
        },
    ]
    src = tmp_path / "rollout.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    w = _converter().convert_codex(str(src), None)
    msgs = [e["message"] for e in w.entries]
    assert [m["role"] for m in msgs] == ["user", "assistant", "toolResult", "assistant"]
    assert msgs[0]["content"][0]["text"] == "fix it"
    assert [b["type"] for b in msgs[1]["content"]] == ["thinking", "toolCall"]
    assert msgs[1]["content"][1]["arguments"] == {"command": "ls"}
    assert msgs[2]["toolCallId"] == "c1" and msgs[2]["toolName"] == "shell_command"
    assert msgs[3]["content"] == [{"type": "text", "text": "done"}] and msgs[3]["model"] == "gpt-5.5"
    assert w.header["id"] == "s1" and w.header["cwd"] == "D:\\p"


def _aider_converter(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(REAL))  # convert_aider reuses the pi writer from convert.py beside it
    spec = importlib.util.spec_from_file_location("real_corpus_convert_aider", REAL / "convert_aider.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_aider_converter_reads_one_run_and_keeps_harness_output_out_of_the_user_role(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / ".aider.chat.history.md"
    src.write_text(
        "\n# aider chat started at 2025-01-01 10:00:00\n\n#### earlier run  \n\nignored\n"
        "\n# aider chat started at 2025-01-02 09:30:00\n\n"
        "> Aider v0.86.2  \n> Model: openrouter/x/coder with diff edit format  \n\n"
        "#### /add a.py  \n\n#### /clear\n\n#### /drop\n\n"
        "#### fix the header  \n#### and keep it small  \n\n"
        "Here is the change:\n\n```md\n#### a heading inside the model's fence\n> a quote\n```\n\n"
        "> Applied edit to a.py  \n> Commit abc1234 fix: header  \n\n"
        "Now the rest:\n\n```python\nprint(1)\n\n"
        "#### stop, use bash instead  \n",
        encoding="utf-8",
    )
    conv = _aider_converter(monkeypatch)
    w = conv.convert_aider(str(src), "2025-01-02 09:30:00", "/unknown")
    msgs = [e["message"] for e in w.entries]
    users = [m["content"][0]["text"] for m in msgs if m["role"] == "user"]
    # One message per typed input: a slash command is one line; a multi-line request is one message.
    assert users == ["/add a.py", "/clear", "/drop", "fix the header\nand keep it small", "stop, use bash instead"]
    replies = [b["text"] for m in msgs if m["role"] == "assistant" for b in m["content"] if b["type"] == "text"]
    assert "#### a heading inside the model's fence\n> a quote" in replies[0]
    results = [m["content"][0]["text"] for m in msgs if m["role"] == "toolResult"]
    assert all(m["toolName"] == "aider" for m in msgs if m["role"] == "toolResult")
    assert "Applied edit to a.py\nCommit abc1234 fix: header" in results
    models = {m["model"] for m in msgs if m["role"] == "assistant"}
    assert models == {"openrouter/x/coder"}
    assert {m["provider"] for m in msgs if m["role"] == "assistant"} == {"openrouter"}
    assert w.header["timestamp"] == "2025-01-02T09:30:00.000Z"


def test_aider_converter_picks_the_nth_run_when_two_start_in_the_same_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # d58: Aider logged an empty launch and the real run under the same start time.
    src = tmp_path / ".aider.chat.history.md"
    src.write_text(
        "\n# aider chat started at 2024-08-26 11:22:38\n\n"
        "\n# aider chat started at 2024-08-26 11:22:38\n\n#### on va créer une API  \n\nD'accord.\n",
        encoding="utf-8",
    )
    conv = _aider_converter(monkeypatch)
    first = conv.convert_aider(str(src), "2024-08-26 11:22:38", "/unknown")
    assert [e for e in first.entries if e["message"]["role"] == "user"] == []
    second = conv.convert_aider(str(src), "2024-08-26 11:22:38", "/unknown", occurrence=2)
    users = [e["message"]["content"][0]["text"] for e in second.entries if e["message"]["role"] == "user"]
    assert users == ["on va créer une API"]
