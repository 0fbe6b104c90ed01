"""Japanese forms of the conversation acts (docs/capture.md, Conversation acts; round 11).

Japanese marks what a sentence does at its end, not its start: an order is a verb's て-form left open ("コミットして",
"シナリオテストにしておいて", "動かしてみて"), with "ください" / "ほしい" after it ("上部に配置してほしい") or a
sentence closed by "こと" ("…残さないようにすること"); a want ends in "たい" ("tasksはコミットするようにしたいかな").
Soft endings a speaker adds (な, ね, よ, かな, です) do not change that. A sentence written only in kana and Latin
script is Japanese too: the Chinese tables (kanji) do not see it.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["JA_EXAMINES", "JA_OBJECT", "JA_PREFERENCE", "JA_REQUEST", "JA_WANT", "KANA"]

KANA: Final = re.compile(r"[\u3040-\u30ff]")
"""Hiragana or katakana: the sentence is Japanese."""

_SOFT_END: Final = r"(?:かな|よね|です|ね|な|よ|わ)?[。．.!！\s]*$"
JA_REQUEST: Final = re.compile(
    r"(?:(?:て|(?<![のん])で)(?:ください|下さい|くれ|くれる|ほしい|欲しい|もらえる|おいて|みて|ね)?|してほしい|すること|ように)"
    + _SOFT_END
)
"""An order or request by its ending: the て-form left open, "ください" / "ほしい" after it, or "こと"."""
JA_WANT: Final = re.compile(r"たい(?:んだけど|んですが|のですが)?" + _SOFT_END)
"""The user's own want ("…にしたい", "なんとかしたい"): an order said as a wish, like "I want to …"."""
JA_OBJECT: Final = re.compile(r"\S[をはも]|[^\sをはもにの]{2}に(?:し|配置|変更|移動|追加)")
"""An order that names its object: a word marked by を / は / も ("specsも更新しておいて", "Header-navを残して"), or
what a thing is to become ("シナリオテストにしておいて"). A bare "コミットして" or "続けて" names none."""
JA_EXAMINES: Final = re.compile(
    r"(?:見て|読んで|調べて|確認して|教えて|説明して|考えて|考察して|提案して|レビューして)(?:ください|下さい|ほしい)?"
    + _SOFT_END
)
"""A request to look, explain or propose ("…を見て、改善点を考察して提案して"): the answer sets direction, not the
request, as with "review …" or "tell me …" in English."""
JA_PREFERENCE: Final = re.compile(
    r"ないように|しないで(?!済)|ないこと|禁止"
    # "Always" that tells how things are or will be is no rule, as English "is always …" is none (round 6):
    # "ミニカードが常に表示されていて" (the card is always shown), "…操作が必ず必要になると思います" (will surely be
    # needed); "…圧迫しないで済みます" (need not burden) says what follows (docs/capture.md, round 22).
    r"|(?:必ず|(?<!非)常に)(?![^、。]{0,20}?(?:ている|ていて|ています|ていた|になると思|でしょう))|絶対に?|決して"
    # The Japanese forms of rule words the English and Chinese tables hold (round 25): "…たくない" / "…たくはない" (I
    # don't want to …, as "I don't want …"), "極力" / "なるべく" / "できるだけ" (as far as possible, as 尽量), and
    # "…に限り" / "…に限って" (only when …, as 只 and "only"); not "まったくない" (not at all).
    r"|(?<!っ)たく(?:は|も)?ない|極力|なるべく|できるだけ|に限(?:り|って)")
"""A standing rule: "…ないように" (so that it does not …), "必ず" / "常に" (always), "禁止" (forbidden), "…たくない" (I
don't want to …), "極力" (as far as possible), "…に限り" (only when …). "非常に" is
"very" ("非常にいいと思います"), another word that only holds "常に" (docs/capture.md, round 22)."""
