"""What a summary must carry across compactions from real conversations (issue 24, retention): the rules a long
user message sets after its opening, and no split-turn tool calls piling up as done work."""

from __future__ import annotations

from engine.accounting.context import ContextMessage
from engine.compaction.span_text import MessageParts, SpanMessage
from engine.compaction.summarizer import SummaryHeader, structured_summary
from engine.compaction.summary_extract import redacted_parts, span_facts
from engine.stores.entries import Entry

_LONG = ("Can you look at the export script and the way it walks the posts folder, and then tell me what it does "
         "with the front matter of each file and why the dates come out in the wrong zone when it runs in CI on "
         "the weekly schedule? I have been looking at it for a while and the output is still confusing to me, and "
         "the log is not much help either because it prints every file twice. Also put the new dates in UTC and "
         "keep the old posts as they are for now.")


def _span(*messages: tuple[str, str]) -> list[SpanMessage]:
    out = []
    for n, (role, text) in enumerate(messages):
        entry = Entry(n + 1, n * 100, 100, "message", f"e{n}", None, None, role=role)
        out.append(SpanMessage(ContextMessage(entry, role, n), redacted_parts(MessageParts(role, text))))
    return out


def test_a_long_messages_closing_rule_survives_the_clipped_item() -> None:
    facts = span_facts(_span(("user", _LONG), ("assistant", "Let me read the script.")))
    said = " ".join(f.text for f in facts.facts)
    assert "Also put the new dates in UTC and keep the old posts as they are for now." in said
    assert "I have been looking at it" in said  # the lead stays as it was


def test_split_turn_tool_calls_are_not_carried_as_done_work() -> None:
    turn = _span(("user", "fix the refill test please"),
                 ("assistant", "Reading it."), ("assistant", "Found the frozen clock."))
    turn[1] = SpanMessage(turn[1].message, MessageParts("assistant", "Reading it.",
                                                        tool_calls=(("read", {"path": "tests/test_refill.py"}),)))
    header = SummaryHeader("summarize", 3, 300, "e3")
    first = structured_summary(header, turn, fmt="pi", read_files=(), modified_files=(), turn_start=0).text
    assert 'read(path="tests/test_refill.py")' in first  # pi's split-turn block lists it once
    earlier = SpanMessage(ContextMessage(Entry(9, 0, 100, "compaction", "c1", None, None,
                                               role="compactionSummary"), "compactionSummary", 0),
                          MessageParts("compactionSummary", first))
    second = structured_summary(header, [earlier, *_span(("user", "now run the whole suite"))], fmt="pi",
                                read_files=(), modified_files=(), turn_start=None).text
    done = second.split("### Done\n", 1)[1].split("\n#", 1)[0]
    assert "read(path=" not in done
    assert "tests/test_refill.py" in second  # the path it named is still there


def test_the_retention_bench_counts_a_label_only_where_one_item_states_it() -> None:
    from bench.real_retention import mentions, states

    label = {"keys": [["diff", "automerge"], ["diff-match-patch"]]}
    scattered = ("## Critical Context\n- lines of diffs applied at once\n\n"
                 "## Key Decisions\n- our own automerge undo plan")
    assert mentions(scattered, label) and not states(scattered, label)
    together = "## Key Decisions\n- apply git changes as a text diff that Automerge merges\n  like any edit"
    assert states(together, label)
    wrapped = "## Key Decisions\n- apply git changes as a text diff\n  that Automerge merges"
    assert states(wrapped, label)  # an item's continuation lines are part of it


def test_a_rule_the_agent_restates_as_the_users_is_kept() -> None:
    facts = span_facts(_span(("user", "update the toc script and run the tests"),
                             ("assistant", "According to your instructions, I should avoid using '&&' to chain "
                                           "commands. Do you want me to run them one by one?")))
    kept = [f.text for f in facts.facts if f.kind == "context"]
    assert kept == ["Agent, restating the user: According to your instructions, I should avoid using '&&' to chain "
                    "commands."]


def test_the_list_a_turns_last_message_reports_is_one_done_item_with_its_header() -> None:
    report = ("I've updated the script. It now works like this:\n\n"
              "1. **Default behavior**: inline images, no uploads\n"
              "2. **`--use-files-api`**: uploads through the Files API\n\nTry it on the sample video.")
    span = _span(("user", "switch to inline images please"), ("assistant", report), ("user", "great, thanks"))
    done = [f.text for f in span_facts(span).facts if f.kind == "done"]
    # The default and the flag that departs from it are one decision: one item says both.
    assert done == ["It now works like this: Default behavior: inline images, no uploads; `--use-files-api`: uploads "
                    "through the Files API"]
    # The same list in a message the agent goes on from is not a report yet.
    middle = _span(("user", "switch to inline images please"), ("assistant", report), ("assistant", "Running it."))
    assert not [f for f in span_facts(middle).facts if f.kind == "done"]
    # A list that names no file, flag or symbol explains; it reports nothing built.
    why = _span(("user", "is it faster?"), ("assistant", "Why:\n\n- no uploads\n- one request\n\nTry it."),
                ("user", "ok"))
    assert not [f for f in span_facts(why).facts if f.kind == "done"]


def test_a_heading_under_a_list_header_keeps_the_header_that_says_what_the_list_is_about() -> None:
    report = ("Right! The problem is **double navigation** from two sources:\n\n## Causes:\n\n"
              "1. **AuthWrapper** listens to `authStateChanges()` and navigates to HomeScreen\n"
              "2. **AuthViewModel.login()** pushes HomeScreen a second time\n\nShall I remove the second one?")
    span = _span(("user", "why is HomeScreen pushed twice"), ("assistant", report), ("user", "yes"))
    done = [f.text for f in span_facts(span).facts if f.kind == "done"]
    assert len(done) == 1 and done[0].startswith("The problem is double navigation from two sources: AuthWrapper")


def test_a_long_reported_list_is_kept_in_parts_not_cut() -> None:
    items = "".join(f"- `step_{n}.py`: {'a long description of the step ' * 4}\n" for n in range(5))
    span = _span(("user", "do the steps"), ("assistant", f"Changes:\n\n{items}\nAll set."), ("user", "ok"))
    done = [f.text for f in span_facts(span).facts if f.kind == "done"]
    assert len(done) > 1 and done[0].startswith("Changes: `step_0.py`") and done[1].startswith("`step_")
    assert all(f"`step_{n}.py`" in " ".join(done) for n in range(5))


def test_a_split_turns_announcements_are_not_carried_as_done_work() -> None:
    from engine.compaction.summary_sections import parse_summary

    text = ("## Early Progress\n- Now let me check the provider.\n- I'll update the WebSocket client next.\n"
            "- Found the frozen clock in conftest.py")
    kinds = {(i.kind, i.text) for i in parse_summary(text).items}
    assert ("done", "Found the frozen clock in conftest.py") in kinds
    assert not any(kind == "done" and ("let me" in said.lower() or "I'll" in said) for kind, said in kinds)


def test_retention_misses_are_listed_for_the_named_group_only(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    # bench.real --retention-misses-of fit: what fit's final summaries lose, per session; a held-out group's
    # sessions are compacted and pooled but never listed.
    from pathlib import Path

    import bench.real as real

    def labels(tag: str) -> dict[str, object]:
        return {"decisions": [{"id": f"D-{tag}", "text": f"decision {tag}", "keys": [["diff", "automerge"]]}],
                "constraints": [{"id": f"C-{tag}", "text": f"rule {tag}", "keys": [["utc"]]}],
                "identifiers": [f"src/{tag}.py", f"kept_{tag}"]}

    sessions = [real.Session(tag, repo, Path(f"/x/{tag}.jsonl"), labels(tag))
                for tag, repo in (("fitone", "own/fit-repo"), ("heldone", "own/held-repo"))]
    summary = "## Key Decisions\n- use a text diff\n- automerge edits\n## Constraints\n- dates in UTC\n- kept_{}"
    results = {str(s.path): {"summary": summary.format(s.name), "summary_tokens": 10, "window": 1000,
                             "compactions": 4} for s in sessions}
    monkeypatch.setattr(real, "run_driver", lambda script, args, root: results)
    split = {"fit": frozenset({"own/fit-repo"}), "test": frozenset({"own/held-repo"})}
    real._retention(sessions, {"ctxscope": Path("."), "baseline": Path(".")}, split, "fit")
    out = capsys.readouterr().out
    listed = out.split("retention misses of fit", 1)[1]
    assert "fitone.jsonl: 2 not kept" in listed
    assert "decision D-fitone (mentioned, not in one item): decision fitone" in listed
    assert "identifier not kept: src/fitone.py" in listed
    assert "C-fitone" not in listed and "kept_fitone" not in listed  # what the summary keeps is not a miss
    assert "heldone" not in listed and "D-heldone" not in out
    assert "[test: 1 sessions]" in out  # the held-out group's pooled lines still show


def test_the_commits_git_reports_in_tool_output_are_kept_as_identifiers() -> None:
    # The hash of a commit the session made appears only in git's output ("[branch hash] subject"); a continuation
    # needs it to push, revert or cite it. The rest of a tool's output is data and names nothing kept.
    span = _span(("user", "commit this and push"),
                 ("toolResult", "[marc/typed-flag-parser 944e953] refactor: move flag parsing to core\n"
                                " 17 files changed\nblob 3f9a2c1d7e in the index"),
                 ("toolResult", "To github.com:own/repo.git\n   944e953..46bc353  marc/typed-flag-parser -> "
                                "marc/typed-flag-parser\n"),
                 ("toolResult", "Applied edit to app/x.tsx\nCommit c47273e refactor: use React Query\n"),
                 ("toolResult", "[main 9f2591a] refactor: convert to classes\n"))
    identifiers = [i for i, _ in span_facts(span).identifiers]
    assert identifiers == ["944e953", "marc/typed-flag-parser", "46bc353", "c47273e", "9f2591a"]
    summary = structured_summary(SummaryHeader("summarize", 5, 100, "e9"), span, fmt="pi", read_files=(),
                                 modified_files=()).text
    assert all(i in summary for i in identifiers) and "3f9a2c1d7e" not in summary


def test_a_short_messages_second_sentence_says_what_to_do_and_is_kept() -> None:
    # The ledger's item is the complaint; what to do about it is the next sentence of the same short message.
    said = ("the philosophy section of the readme is too long... really i just want a oneliner, maybe stylized "
            "like a quote, and citing philosophy.md")
    span = _span(("assistant", "I added the Philosophy section to the README."), ("user", said),
                 ("assistant", "Done: the section is one quoted line now."))
    summary = structured_summary(SummaryHeader("summarize", 3, 100, "e3"), span, fmt="pi", read_files=(),
                                 modified_files=()).text
    assert "oneliner, maybe stylized like a quote, and citing philosophy.md" in summary


def test_a_confirmed_offer_keeps_the_users_reply_when_it_says_more_than_yes() -> None:
    # "yes pls put them into a dist dir instead" narrows the offer it answers; a bare "yes" adds nothing.
    span = _span(("user", "the build leaves js files next to the sources"),
                 ("assistant", "Would you like me to clean up the generated `.js` files and add `*.js` to "
                               "`.gitignore` under `src/`?"),
                 ("user", "yes pls put them into a dist dir instead"),
                 ("assistant", "Done: the compiler writes to dist/ now."),
                 ("user", "now the tests"),
                 ("assistant", "Shall I run the whole suite?"),
                 ("user", "yes"),
                 ("assistant", "All 40 tests pass."))
    decisions = [f.text for f in span_facts(span).facts if f.kind == "decisions"]
    # Since capture round 15 a yes that goes on to say what to do is decided in the user's words with the offer
    # beside it ("… (agrees: …)"); the summary's wording adds the reply only where the item lacks it.
    narrowed = [d for d in decisions if "yes pls put them into a dist dir instead" in d]
    assert len(narrowed) == 1 and "clean up the generated `.js` files" in narrowed[0].lower(), decisions
    assert narrowed[0].count("dist dir") == 1  # the reply once, not again as "(the user: …)"
    assert not any("the user: \"yes\"" in d or "yes (agrees" in d for d in decisions)


def test_an_answer_given_through_claude_codes_question_tool_is_a_decision_as_in_the_checkpoint() -> None:
    # The checkpoint folds the user's pick in AskUserQuestion as a confirmed decision; the summary is made of the
    # same items, so the pick must be there too.
    span = _span(("user", "clean up the gitignore"), ("assistant", "Let me ask first."),
                 ("toolResult", "placeholder"), ("assistant", "Tracking both now."))
    answer = ('User has answered your questions: "Do you want to track the .claude/ directory in git? Also, should '
              '.entire/ be included?"="Track both". You can now continue with the user\'s answers in mind.')
    span[2] = SpanMessage(span[2].message, redacted_parts(MessageParts("toolResult", answer,
                                                                       tool_name="AskUserQuestion")))
    decisions = [f.text for f in span_facts(span).facts if f.kind == "decisions"]
    assert any(d.endswith("— Track both") for d in decisions), decisions
    other = [SpanMessage(span[2].message, redacted_parts(MessageParts("toolResult", answer, tool_name="Bash")))]
    assert not [f for f in span_facts(other).facts if f.kind == "decisions"]  # only the asking tool's result


def test_a_plugin_command_the_user_ran_is_an_identifier_and_the_clients_own_are_not() -> None:
    ran = ("<command-message>kitchen:recipe</command-message>\n<command-name>/kitchen:recipe</command-name>\n"
           "<command-args>add the license trend field to the report</command-args>")
    cleared = ("<command-name>/clear</command-name>\n<command-message>clear</command-message>\n"
               "<command-args></command-args>")
    found = [i for i, _ in span_facts(_span(("user", ran), ("user", cleared), ("assistant", "On it."))).identifiers]
    assert "/kitchen:recipe" in found and "/clear" not in found
