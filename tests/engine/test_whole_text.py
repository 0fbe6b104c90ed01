"""Shortening text never cuts a word: whole sentences, then whole words, then an ellipsis."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.capture.whole_text import ELLIPSIS, clip_words, whole_item, whole_sentences

_TEXT = st.lists(st.text(alphabet="abcdefghij.,!?", min_size=1, max_size=12), min_size=1, max_size=40).map(" ".join)


@given(text=_TEXT, limit=st.integers(min_value=5, max_value=80))
def test_clip_words_cuts_between_words(text: str, limit: int) -> None:
    clipped = clip_words(text, limit)
    words = text.split()
    if clipped.endswith(" " + ELLIPSIS):
        kept = clipped[: -len(ELLIPSIS) - 1].split()
        assert kept == words[: len(kept)] or kept[:-1] == words[: len(kept) - 1]  # trailing punctuation trimmed
        assert len(kept) < len(words)
    else:
        assert clipped == " ".join(words)


@given(text=_TEXT, limit=st.integers(min_value=5, max_value=80))
def test_whole_sentences_keeps_whole_sentences(text: str, limit: int) -> None:
    short = whole_sentences(text, limit)
    flat = " ".join(text.split())
    assert short == flat or short.endswith(ELLIPSIS)
    assert all(word in flat.split() or word == ELLIPSIS or flat.startswith(short[: -2]) for word in short.split())


def test_whole_sentences_prefers_sentence_ends() -> None:
    text = "First sentence here. Second one is longer than the first. Third."
    assert whole_sentences(text, 45) == "First sentence here. …"
    assert whole_sentences(text, 200) == text


def test_whole_item_undoes_an_extractors_cut() -> None:
    line = "- **Decision:** keep the shard router stateless and " + "route by merchant range " * 10 + "always. Next."
    cut = ("Decision: keep the shard router stateless and " + "route by merchant range " * 10)[:199] + "…"
    assert whole_item(cut, line) == ("Decision: keep the shard router stateless and "
                                     + "route by merchant range " * 10 + "always.")
    assert whole_item("not cut", line) == "not cut"
    assert whole_item("missing text…", line) == "missing text…"
