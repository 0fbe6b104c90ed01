"""The later wordings of Claude Code's ``AskUserQuestion`` result are the user's answers too: "Your questions have
been answered: …", an option's ``selected preview:`` after the answer, and "The user answered: …" with the user's own
notes when no option was picked (docs/capture.md, round 29). Texts verbatim from Nishanth-sebastin/eagerminds-bookmarks
(tests/data/real/d97) and polecatspeaks/StarCar (tests/data/real/d102)."""

from __future__ import annotations

from pathlib import Path

from bench.real_capture import predict
from engine.capture.tool_answers import asked_questions, tool_answers

_D97 = ('Your questions have been answered: "When should the welcome email be sent?"="After email confirmation '
        '(recommended)". You can now continue with these answers in mind.')

_D102_PREVIEW = (
    'Your questions have been answered: "What stack does the server run on? This picks the test runner, the CI '
    'workflow, and what "a stranger deploys this" costs them (Law 7). It also decides whether the browser side shares '
    'a language with the server."="TypeScript on Node (Recommended)" selected preview:\nserver: node + express/hono, '
    'res.write() SSE\nview:   plain TS + DOM (no framework at v0)\ntest:   vitest, red-first, fast watch\nship:   npm '
    'i && npm start  (stranger: 1 dep, Node)\n\nshared types = adapters and view cannot drift. You can now continue '
    'with these answers in mind.')

_D102_NOTES = (
    'The user answered: "How much of the verdict lands in the repo? The provenance link is going in either way - this '
    'is only about whether the verbatim body stays alongside it."=(no option selected) notes: yes this is exactly it. '
    'Think of the entire provenence as citations in a academic paper.. Read the answers carefully — they may request '
    'clarification, changes, or that you not proceed — and follow what they actually say.')


def test_your_questions_have_been_answered_is_the_users_choice() -> None:
    assert tool_answers("AskUserQuestion", _D97) == [
        ("When should the welcome email be sent?", "After email confirmation")]


def test_an_answer_followed_by_the_options_preview_is_the_option_alone() -> None:
    [(question, answer)] = tool_answers("AskUserQuestion", _D102_PREVIEW)
    # The question keeps its bare quotes; the preview is the agent's sketch of the option, not the user's answer.
    assert question.startswith("What stack does the server run on?") and '"a stranger deploys this"' in question
    assert answer == "TypeScript on Node"


def test_no_option_selected_gives_the_users_notes() -> None:
    [(question, answer)] = tool_answers("AskUserQuestion", _D102_NOTES)
    assert question.startswith("How much of the verdict lands in the repo?")
    assert answer == ("yes this is exactly it. Think of the entire provenence as citations in a academic paper.")


# Codex's request_user_input (savekirk/session-bridge, tests/data/real/d98): the call asks by id, the result answers
# by id only.
_D98_CALL = {"questions": [{"header": "Placement", "id": "details_surface", "question": (
    "Where should the session details webview appear when a session is selected?"), "options": [
    {"label": "Sidebar View (Recommended)", "description": (
        "Add a persistent 'Session Details' view in the existing Session Bridge container that updates with the "
        "current session selection.")},
    {"label": "Editor Panel", "description": (
        "Open or reuse a webview panel in the editor area each time the selected session changes.")},
    {"label": "Replace Tree Details", "description": (
        "Keep everything in the Sessions tree and do not add a separate webview surface.")}]}]}
_D98_RESULT = '{"answers":{"details_surface":{"answers":["Editor Panel"]}}}'


def test_codex_request_user_input_answers_its_calls_question() -> None:
    asked = asked_questions("request_user_input", _D98_CALL)
    assert tool_answers("request_user_input", _D98_RESULT, asked) == [
        ("Where should the session details webview appear when a session is selected?", "Editor Panel")]
    # Read without its call (a later capture run), the answer is named by the question's id.
    assert tool_answers("request_user_input", _D98_RESULT) == [("details surface", "Editor Panel")]
    # The same JSON from any other tool is no answer of the user's.
    assert tool_answers("exec_command", _D98_RESULT, asked) == []


def test_codex_request_user_input_answer_is_a_confirmed_decision_in_the_session() -> None:
    decisions = predict(Path(__file__).resolve().parents[1] / "data" / "real" / "d98_sbridge_details_panel.jsonl")
    assert ("Where should the session details webview appear when a session is selected? — Editor Panel"
            in decisions["decisions"])


def test_a_codex_answer_in_a_later_capture_still_names_its_question() -> None:
    # The sidecar captures as the file grows: the user answers request_user_input after a while, so the call and its
    # result fall in different captures, with the state saved between them (session-bridge d98).
    from engine.capture.state import CapturedState, capture
    from engine.stores.transcript import read_transcript
    from tests.engine.test_capture_real import REAL, _state

    reader = read_transcript(REAL / "d98_sbridge_details_panel.jsonl")
    entries = list(reader.entries)
    answer = next(i for i, e in enumerate(entries) if e.role == "toolResult" and e.tool_name == "request_user_input")
    first = capture(CapturedState(), entries[:answer], reader.read_object)
    resumed = capture(CapturedState.from_dict(first.to_dict()), entries[answer:], reader.read_object)
    whole = _state("d98_sbridge_details_panel")
    assert "Where should the session details webview appear when a session is selected? — Editor Panel" in [
        i.text for i in whole.items() if i.kind == "decision"]
    assert resumed.items() == whole.items()
