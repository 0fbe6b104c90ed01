"""Token counting: BPE for prose, chars/4 for unbroken runs long enough to make BPE blow up."""

from __future__ import annotations

import math

from engine.accounting.tokens import LONG_RUN_CHARS, get_counter


def test_prose_is_counted_by_the_encoding() -> None:
    counter = get_counter()
    text = "The quick brown fox jumps over the lazy dog. " * 200
    assert counter.encoding is not None
    assert counter.count(text) == len(counter.encoding.encode_ordinary(text))


def test_a_long_unbroken_run_is_counted_by_chars_over_four_and_the_prose_around_it_by_bpe() -> None:
    counter = get_counter()
    blob = "QUJD" * (LONG_RUN_CHARS // 2)  # base64-looking, twice the threshold
    before, after = "here is the payload: ", " and that was all of it."
    expected = (
        len(counter.encoding.encode_ordinary(before)) + math.ceil(len(blob) / 4)
        + len(counter.encoding.encode_ordinary(after))
    )
    assert counter.count(before + blob + after) == expected


def test_a_run_just_under_the_threshold_still_goes_through_bpe() -> None:
    counter = get_counter()
    run = "ab" * ((LONG_RUN_CHARS - 1) // 2)
    assert counter.count(run) == len(counter.encoding.encode_ordinary(run))
