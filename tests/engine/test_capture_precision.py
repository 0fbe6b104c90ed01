"""Capture precision on real conversations (docs/capture.md, round 6): shapes that read as rules but are not."""

from __future__ import annotations

from engine.capture.acts import read_user_turn
from tests.engine.test_capture_real import _constraints, _fold


def test_always_before_a_value_a_number_or_as_describes_the_data() -> None:
    # KLIMA d50/d51/d52 and 0anes0 d57: a spec of the data, or Verilog's `always @(...)`, is no standing rule.
    for text in ('In the table "Bewilligt" is always "kein Wert" and "Beantragt" the stored value.',
                 "Then we got always two values underneath from PoolingVerg, the historic and the current one.",
                 "The way its supposed to be rendered is the key as header and the key always as first column.",
                 "Verilog export için SR Latch always @(...) tabanlı şablonları ekle."):
        assert _constraints(_fold(("user", text))) == [], text
    assert _constraints(_fold(("user", "From now on always use the Files API for uploads larger than 20 MB.")))


def test_each_other_and_the_things_just_made_are_not_a_class_of_things() -> None:
    # KLIMA d56 ("next to each other"), odyash d10 ("to each .js file you created"), odyash d09 ("in each of
    # these cases"): these things here, not every such thing from now on.
    for text in ("Also Entwahl 1 and 2 should be displayed in card next to each other since they share a structure.",
                 "ok, now add to each .js file you created a big comment block at the top explaining the code flow.",
                 "give me dummy examples of what will happen in each of these cases"):
        assert _constraints(_fold(("user", text))) == [], text
    assert _constraints(_fold(("user", "rename the props to camelCase in all .module.css files")))


def test_a_no_that_reports_the_failure_is_a_report_not_a_correction() -> None:
    # evs d26 and KLIMA d52: "No the video doesn't load", "Nope, still not adjusting to dark mode fully".
    for text in ("No the video doesn't load in the modal. Console error: ReferenceError: bootstrap is not defined",
                 "Nope, still not adjusting to dark mode fully. Heres the html code: <div class=\"results\"></div>"):
        turn = read_user_turn(text, agent_offered=False)
        assert "corrects" not in turn.acts and "reports" in turn.acts, text
        items = _fold(("user", "make the modal play the video"), ("assistant", "Fixed: the modal now loads it."),
                      ("user", text))
        assert _constraints(items) == [], text
        assert [i for i in items if i.kind == "open" and not i.done and i.text.startswith(text[:20])], text
    # A "no" that says what the agent did wrong, or what the user wants, still corrects.
    assert "corrects" in read_user_turn("no no you literally did the opposite! I want it to be like -raw-",
                                        agent_offered=False).acts
    assert "corrects" in read_user_turn("No, the button is still blue. Make it red.", agent_offered=False).acts


def test_i_or_we_dont_with_a_verb_other_than_one_of_will_tells_how_things_are() -> None:
    # KLIMA d56 ("I dont receive error"), odyash d09 ("* we don't add `2>/dev/null` nor `|| true`", a case asked
    # about): a state or a hypothetical, not a rule. "I don't want …" and "we don't use …" still are rules.
    for text in ("storing works fine, but the refs are still not set. I dont receive error regarding that.",
                 "what happens in these cases:\n\n* we don't add `2>/dev/null` nor `|| true` syntax\n* we add both"):
        assert _constraints(_fold(("user", text))) == [], text
    for text in ("I don't want to emphasize the weekly apps too much on the landing page.",
                 "we don't use semicolons at the end of lines in this codebase."):
        assert _constraints(_fold(("user", text))), text


def test_make_sure_that_checks_the_steps_result_is_part_of_the_step() -> None:
    # odyash d10 and keyframe-blogger d14: the check that ends this step, not how to work from now on.
    for text in ("Then, write test script files in tmp folder and make sure everything's working correctly.",
                 "Now make sure all the transcript text is mixed in appropriately."):
        assert _constraints(_fold(("user", text))) == [], text
    assert _constraints(_fold(("user", "make sure to run the formatter before every commit")))
    assert _constraints(_fold(("user", "make sure you never print the API key in the logs")))


def test_a_bare_session_command_is_done_when_said_and_still_closes_what_the_agent_answered() -> None:
    # todo-app d55 ("/exit") and KLIMA d56 ("/clear", "exit"): they stayed open at the end as requests.
    for command in ("/exit", "/clear", "exit"):
        items = _fold(("user", "make the todo list refresh after a server action"),
                      ("assistant", "I've added revalidatePath('/') to the action."),
                      ("user", command))
        assert [i.text for i in items if i.kind == "open" and not i.done] == [], command
        said = [i for i in items if i.text == command]
        assert len(said) == 1 and said[0].done and said[0].when == said[0].done_when, command
    # A command with an argument, or words after it, is not a bare session command.
    assert "/exit please" in [i.text for i in _fold(("user", "/exit please")) if i.kind == "open" and not i.done]


def test_make_sure_is_a_rule_only_when_it_says_how_to_work_or_forbids_something() -> None:
    # odyash d10: a check of work already done; tnyOffice d03: the purpose of what is asked ("a way to make sure …").
    # Neither says how the agent is to work from now on (docs/capture.md, round 13).
    for text in ("so add them in the comments, and make sure that you implemented the logic (i think you did)",
                 "Just a way to make sure that when the front end, @apps/docs/ communicates with the backend api "
                 "(REST and websockets) that is secured."):
        assert not any(s.preference for s in read_user_turn(text, agent_offered=False).sentences), text
    # odyash d10: a condition every result must keep ("make sure there's still no …") stays a rule.
    kept = ("text, then its equivalent part should be surrounded by `-raw-` and `-endraw-` but make sure there's "
            "still no 2+ consecutive hyphens.")
    assert any(s.preference for s in read_user_turn(kept, agent_offered=False).sentences)
    assert _constraints(_fold(("user", "make sure to run the formatter before every commit")))
    assert _constraints(_fold(("user", "make sure you never print the API key in the logs")))


def test_an_order_to_make_something_new_for_every_such_thing_is_one_piece_of_work_not_a_rule() -> None:
    # KLIMA d50 and keyframe-blogger d14: adding or generating one new thing for all the views / cards is the work of
    # this turn; a convention over a class ("change … to camelCase in all .module.css and .tsx files", seraphine d12)
    # stays a rule (docs/capture.md, round 13).
    for text in ("I want to add Navigation for all input views, I want them to be in a dropdown, which also shows "
                 "which of them is currently rendered.",
                 "Generate a new SVG file in /public that is a placeholder image we can display for all the car cards.",
                 'Add a ShadCN button to each card with an icon for "favorite".'):
        assert not any(s.preference for s in read_user_turn(text, agent_offered=False).sentences), text
    assert _constraints(_fold(("user", "I want you to change the dash-case class names to camelCase in all "
                                       ".module.css and .tsx files")))
