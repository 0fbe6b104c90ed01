"""Open items at the end, round 26 (docs/capture.md). Real FIT text quoted verbatim."""

from __future__ import annotations

from tests.engine.test_capture_real import _fold, _open, _state

# d54 (0anes0/verilog_simulasyonu-LSFL-, Aider): the agent's first reply writes whole modules in SEARCH/REPLACE
# blocks; canvas.py holds two stub methods with TODO comments.
_CANVAS = (
    "Harika bir proje! LSFL (Logic Sim For Linux) için kapsamlı bir mantık devresi simülatörü oluşturacağım.\n\n"
    "lsfl/gui/canvas.py\n```python\n<<<<<<< SEARCH\n=======\n"
    "    def select_all(self):\n"
    "        self.selected_components = self.circuit.components.copy()\n"
    "        self.update()\n"
    "        \n"
    "    def undo(self):\n"
    "        # TODO: Implement undo\n"
    "        pass\n"
    "        \n"
    "    def redo(self):\n"
    "        # TODO: Implement redo\n"
    "        pass\n"
    ">>>>>>> REPLACE\n```\n"
)


def test_a_todo_comment_inside_code_the_agent_writes_is_no_next_step() -> None:
    items = _fold(("user", "Şimdi seninle muhteşem bir uygulamanın geliştirme sürecine girişeceğiz."),
                  ("assistant", _CANVAS))
    assert "Implement undo" not in _open(items)
    assert "Implement redo" not in _open(items)
    # Outside a fence the same line is still the agent's step.
    items = _fold(("user", "Şimdi seninle muhteşem bir uygulamanın geliştirme sürecine girişeceğiz."),
                  ("assistant", "Harika bir proje!\n# TODO: Implement undo"))
    assert "Implement undo" in _open(items)
    # The whole session: neither stub is open at the end.
    opened = _state("d54_lsfl_logic_sim").open_items
    assert "Implement undo" not in opened and "Implement redo" not in opened
