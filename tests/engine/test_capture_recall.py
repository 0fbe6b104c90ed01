"""Messages that gave no item of their kind (docs/capture.md, round 10); the user's words are FIT sessions'."""

from __future__ import annotations

from tests.engine.test_capture_real import _constraints, _decisions, _fold

# twardoch/twat-search d22: the correction is a judgement of the agent's design, after a "why" question.
_TWAT_D22 = ("But why do I have to provide api_key there? It’s bad design. I shouldn't have to provide the API_KEY "
             "into the EngineConfig, it's very weird architecture. After all, this stuff is specific to the engine. "
             "Who knows, maybe some engine won't need an API key at all?")
# 0xmcc/ubi-course d11: the agent answered with a long list of questions.
_UBI_D11 = "These are an insane amount of questions. Holy shit, are all these questions needed to improve the copy?"


def test_a_judgement_of_the_agents_work_is_a_correction_a_good_one_or_a_question_is_not() -> None:
    constraints = _constraints(_fold(("user", "add the Brave search engine to engines/brave.py"),
                                     ("assistant", "I've added api_key to EngineConfig."),
                                     ("user", _TWAT_D22)))
    assert len(constraints) == 1 and "this stuff is specific to the engine" in constraints[0]
    assert _constraints(_fold(("assistant", "1. Who is it for? 2. What do they fear? …"), ("user", _UBI_D11))) == [
        _UBI_D11]
    assert _constraints(_fold(("assistant", "I've restyled the cards."), ("user", "this looks good, thanks"))) == []
    assert _constraints(_fold(("user", "is it a bad idea to keep the key in EngineConfig?"))) == []


def test_a_correction_by_judgement_keeps_the_request_it_is_about_open() -> None:
    items = _fold(("user", "improve the copy of index.html"),
                  ("assistant", "Before I edit, answer these: 1. Who is it for? 2. What do they fear?"),
                  ("user", _UBI_D11))
    assert any(i.kind == "open" and i.text == "improve the copy of index.html" and not i.done for i in items)


def test_readme_orders_with_their_own_content_set_direction_writing_up_done_work_does_not() -> None:
    # specstoryai/keyframe-blogger d16 and PierrunoYT/expense-tracker d53, verbatim.
    decisions = _decisions(_fold(("user", "ok. too many options though. update the readme with just the one setup "
                                          "and usage path via poetry")))
    assert len(decisions) == 1 and decisions[0].endswith(
        "update the readme with just the one setup and usage path via poetry")
    assert _decisions(_fold(("assistant", "The CLI is ready. Would you like me to add tests?"),
                            ("user", "create a readme"))) == ["create a readme"]
    # specstoryai/tnyOffice d02, verbatim; keyframe-blogger d14's bare "update @README.md": write-ups of done work.
    assert _decisions(_fold(("user", "update @apps/api/README.md to clarify this"))) == []
    assert _decisions(_fold(("user", "update @README.md"))) == []


# tha-hammer/easy-video-share-vue d23, verbatim: what is wanted, with no file or code named.
_EVS_D23 = ("Review the documentation.\n\nRemember, I'm using the \"cloud resume challenge\" process to learn cloud "
            "engineering concepts.\n\nWe have an app that allows for uploads to a single bucket on S3 and displays the "
            "contents of the bucket on the upload page.\n\nI want to build up to allowing for login and user accounts. "
            "As an MVP step, I want to add an api to communicate with a dynamodb. The database should record the "
            "username, the file name and the bucket location.  The upload form should add a filed for the username.")


def test_an_order_said_as_the_users_own_want_sets_direction_without_a_concrete_thing() -> None:
    # specstoryai/keyframe-blogger d13, verbatim.
    assert _decisions(_fold(("user", "I want to use gemini 2.5 pro"))) == ["I want to use gemini 2.5 pro"]
    decisions = _decisions(_fold(("user", _EVS_D23)))
    assert len(decisions) == 1 and "dynamodb" in decisions[0] and "record the username" in decisions[0]
    # Wanting to understand something asks; it sets no direction.
    assert _decisions(_fold(("user", "I want to understand how the upload works"))) == []
