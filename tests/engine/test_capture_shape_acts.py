"""Instructions in a language without a table, read from the shape of the conversation (docs/capture.md, round 14).

The user's and the agent's words are FIT sessions', verbatim (the agent's replies cut after their first edit, the
pasted log shortened).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import engine.capture.ledger as ledger_module
from engine.capture.ledger import Item, Ledger, carry_open, fold_agent, fold_user, ledger_at_end
from engine.capture.state import CapturedState, capture
from engine.capture.state_files import load_state, save_state
from engine.stores.transcript import read_transcript

_REAL = Path(__file__).resolve().parents[1] / "data" / "real"


def _fold(*turns: tuple[str, str, bool]) -> tuple[Item, ...]:
    """``(role, text, acted)`` turns folded in order: ``acted`` is whether an agent message called a tool."""
    ledger = Ledger()
    for n, (role, text, acted) in enumerate(turns):
        when = f"2026-01-01T00:00:{n:02d}Z"
        ledger = (fold_user(ledger, text, when, f"e{n}") if role == "user"
                  else fold_agent(ledger, text, acted, when, f"e{n}"))
    return ledger_at_end(ledger, "2026-01-01T00:01:00Z")


def _decisions(items: tuple[Item, ...]) -> list[Item]:
    return [i for i in items if i.kind == "decision"]


# 0anes0/verilog_simulasyonu-LSFL- d54, U11 and the start of Aider's answer (an edit written out as SEARCH/REPLACE).
_TR_USER = ("orta tuşla ekrande gezmeye çalışırken beni yukarıya atıyor. Map i kaybettim bu yüzden. Buna bir çözüm "
            "bulalım. Mapın dışındaki alanlara çıkmama gerek yok bir de mapin dışına çıkmayı kapatabliriz.")
_TR_AGENT = ("Anladım! Orta tuş ile pan yaparken scroll olayı tetikleniyor ve sizi yukarı atıyor. Ayrıca canvas "
             "sınırlarını da kontrol edelim. İşte düzeltmeler:\n\nlsfl/gui/canvas.py\n````python\n<<<<<<< SEARCH\n"
             "        elif event.button() == Qt.MouseButton.MiddleButton:\n            # Pan başlat\n"
             "            self.panning = True\n            self.pan_start = pos\n"
             "            self.setCursor(Qt.CursorShape.ClosedHandCursor)\n=======\n"
             "        elif event.button() == Qt.MouseButton.MiddleButton:\n            # Pan başlat\n"
             "            self.panning = True\n"
             "            self.pan_start = event.pos()  # Ekran koordinatlarını kullan\n"
             "            self.setCursor(Qt.CursorShape.ClosedHandCursor)\n>>>>>>> REPLACE\n````")

# Orolol/tellmepedia d58, U16, Aider's answer (it asks for the file), its tool call, and Aider GUI's notice.
_FR_USER = ("Je pense que plutôt que limiter, il faudrait découper l'article en chunk, traiter tout les chunks, puis "
            "les funionner")
_FR_AGENT = ("Je comprends votre suggestion. Pour implémenter cette approche de découpage en morceaux (chunks), de "
             "traitement de chaque morceau, puis de fusion des résultats, nous devrons probablement modifier le "
             "fichier suivant :\n\napi/app.py\n\nCe fichier contient la logique principale de l'API et devra être "
             "modifié pour "
             "intégrer la nouvelle approche de traitement par morceaux.\n\nAvant de procéder aux modifications, "
             "pourriez-vous s'il vous plaît ajouter ce fichier au chat ? Une fois que vous l'aurez fait, je pourrai "
             "proposer les changements spécifiques nécessaires pour mettre en œuvre cette nouvelle approche.")
_AIDER_NOTICE = "I added these files to the chat: api/app.py\nLet me know if there are others we should add."

# nmd1406/NutriPal d27, U7 and the start of the agent's answer: it explains ways to fix, it edits nothing.
_VI_USER = ("khi tôi thử đăng nhập sai, exception được hiển thị đúng, nhưng khi chuyển sang màn khác và quay lại màn "
            "login thì exception vẫn hiển thị")
_VI_AGENT = ("Vấn đề này xảy ra vì **state của error không được reset** khi rời khỏi màn hình và quay lại. Có một số "
             "cách để fix:\n\n## Cách 1: Reset state khi dispose màn hình\n\n````dart\n@override\nvoid dispose() {\n"
             "  _emailController.dispose();\n  _passwordController.dispose();\n  \n  // Reset auth state khi dispose\n"
             "  ref.read(authViewModelProvider.notifier).clearError();\n  \n  super.dispose();\n}\n````")

# specstoryai/tnyOffice d03: an English lint log pasted without a word of the user's (lines of it, verbatim), then the
# agent's fix.
_EN_LOG = "\n".join((
    '➜  apps git:(main) ✗ npm run lint',
    '',
    '> lint',
    '> turbo run lint',
    '',
    'turbo 2.5.5',
    '',
    '• Packages in scope: @tnyoffice/logger, api, docs',
    '• Running lint in 3 packages',
    '• Remote caching disabled',
    'api:lint: /Users/jakelevirne/dev/specstoryai/tnyOffice/apps/api/src/middleware/auth.ts',
    'api:lint:   7:86  error  Missing return type on function  @typescript-eslint/explicit-function-return-type',
    'api:lint: ',
    'api:lint: ✖ 1 problem (1 error, 0 warnings)',
    'api:lint: ',
    'npm error Lifecycle script `lint` failed with error:',
    'npm error code 1',
    'npm error path /Users/jakelevirne/dev/specstoryai/tnyOffice/apps/api',
    'npm error command failed',
    'npm error command sh -c eslint src --ext .ts',
))
_EN_AGENT = "I need to fix the ESLint error by adding the return type to the `authenticateRequest` function:"


def test_a_turkish_message_the_agent_acts_on_is_a_decision_with_the_time_it_was_said() -> None:
    decisions = _decisions(_fold(("user", _TR_USER, False), ("assistant", _TR_AGENT, False)))
    assert len(decisions) == 1
    assert decisions[0].source == "instruction" and decisions[0].when == "2026-01-01T00:00:00Z"
    # The label's terms (d54 D7: "orta tuş", "mapin dışına") are in the sentences the reply took up.
    assert "orta tuşla ekrande gezmeye" in decisions[0].text and "mapin dışına" in decisions[0].text.lower()


def test_a_french_correction_is_a_decision_once_the_agent_acts_after_asking_for_the_file() -> None:
    decisions = _decisions(_fold(("user", _FR_USER, False), ("assistant", _FR_AGENT, False), ("assistant", "", True),
                                 ("user", _AIDER_NOTICE, False)))
    assert [d.text for d in decisions] == [_FR_USER]
    assert decisions[0].entry_id == "e0"


def test_a_checkpoint_before_the_agent_acts_carries_the_message_into_the_next_cycle() -> None:
    # The checkpoint is taken between the message and the agent's edit: it cannot list the decision yet.
    before = fold_user(Ledger(), _TR_USER, "2026-01-01T00:00:00Z", "e0")
    assert _decisions(ledger_at_end(before, None)) == []
    after = fold_agent(carry_open(before), _TR_AGENT, False, "2026-01-01T00:00:01Z", "e1")
    assert [d.entry_id for d in _decisions(ledger_at_end(after, None))] == ["e0"]
    # Once the agent acted, the checkpoint lists it, and the next cycle does not list it again.
    acted = fold_agent(before, _TR_AGENT, False, "2026-01-01T00:00:01Z", "e1")
    assert len(_decisions(ledger_at_end(acted, None))) == 1
    assert _decisions(ledger_at_end(carry_open(acted), None)) == []


def test_a_message_the_agent_only_answers_or_that_asks_gives_no_decision() -> None:
    # The agent explains, with code in its answer, and calls no tool: nothing shows it took the message as an order.
    assert _decisions(_fold(("user", _VI_USER, False), ("assistant", _VI_AGENT, False))) == []
    # The same Turkish message with a reply that repeats its words but edits nothing.
    assert _decisions(_fold(("user", _TR_USER, False), ("assistant", _TR_AGENT.split("\n\n")[0], False))) == []
    # A question by its mark, and a reply that acts on something else (shares none of the message's terms).
    assert _decisions(_fold(("user", _TR_USER.rstrip(".") + "?", False), ("assistant", _TR_AGENT, True))) == []
    assert _decisions(_fold(("user", _TR_USER, False), ("assistant", "Done.", True))) == []
    # A short answer in a language without a table ("Oui !", "voila") directs nothing.
    assert _decisions(_fold(("user", "Oui !", False), ("assistant", _FR_AGENT, True))) == []


def test_an_english_message_is_read_exactly_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    log = (("user", _EN_LOG, False), ("assistant", _EN_AGENT, True))
    order = (("user", "I want to use gemini 2.5 pro", False), ("assistant", "I've updated transcribe.py.", True))
    assert _decisions(_fold(*log)) == []
    assert [d.text for d in _decisions(_fold(*order))] == ["I want to use gemini 2.5 pro → I've updated transcribe.py."]
    with_shape = (_fold(*log), _fold(*order))
    monkeypatch.setattr(ledger_module, "pending", lambda *_: None)  # the ledger without the shape reading
    assert with_shape == (_fold(*log), _fold(*order))


def test_no_table_applies_to_turkish_french_and_vietnamese_prose_not_to_english_chinese_or_japanese() -> None:
    # Imported here: the other tests run on the code before this module too.
    from engine.capture.shape_acts import no_table

    assert no_table([_TR_USER]) and no_table([_FR_USER]) and no_table([_VI_USER])
    assert not no_table(["given everything you know about @apps/docs/ fix this build error"])
    # An English error caption has no function words; it has no letter English lacks either.
    assert not no_table(["Found 6 errors in 3 files.", "npm error Lifecycle script `build` failed with error:"])
    assert not no_table(["不要用animator，用actor"]) and not no_table(["specsも更新しておいて"])


@pytest.mark.parametrize("name", ["d54_lsfl_logic_sim", "d58_tellme_wiki_audio"])
def test_capture_saved_between_a_message_and_the_agents_edit_and_resumed_reads_as_one_pass(
        name: str, tmp_path: Path) -> None:
    # 0anes0 d54 (Turkish) and Orolol d58 (French): saved right after each user message, before the agent answers.
    reader = read_transcript(_REAL / f"{name}.jsonl")
    entries = list(reader.entries)
    whole = capture(CapturedState(), entries, reader.read_object)
    users = [n for n, e in enumerate(entries) if e.role == "user"]
    assert any(i.kind == "decision" for i in whole.items())
    for n in users:
        save_state(tmp_path, name, capture(CapturedState(), entries[:n + 1], reader.read_object))
        resumed = capture(load_state(tmp_path, name).state, entries[n + 1:], reader.read_object)
        assert resumed.items() == whole.items(), (name, n)
