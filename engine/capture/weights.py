"""Numbers fit on the labelled data in ``tests/data``; written by ``python -m bench.fit_capture``.

Do not edit by hand: change the features or the data and run the fit again. Cross-validated figures
for these choices are printed by ``python -m bench.quality``.
"""

from __future__ import annotations

DECISION_WEIGHTS: dict[str, float] = {
    'after_fence': 0.6004,
    'after_fence*choice': 0.0664,
    'after_fence*commit': 0.4974,
    'after_fence*intent': 0.5669,
    'after_list': -0.1644,
    'also': -0.7895,
    'choice': 3.5532,
    'chore': -1.4119,
    'commit': 2.1251,
    'conclusion': 1.5052,
    'conclusion*standalone': 1.5052,
    'conditional': -1.1053,
    'doc_explore': -1.1243,
    'doc_explore*first_item': -0.1334,
    'doc_many_bold': -1.0765,
    'doc_question_end': -0.8858,
    'doc_question_end*intent': -0.3361,
    'doc_undecided': 0.1916,
    'done': -0.1767,
    'explore_step': -0.8074,
    'explore_step*under_plan': -0.2723,
    'filler': -1.0036,
    'first_item': 0.7746,
    'first_item*reply_start': 0.9141,
    'first_item*under_explore': -0.2552,
    'first_item*under_plan': 3.0971,
    'first_item*under_plan*reply_affirm': 0.2535,
    'first_para*past_report': -0.5173,
    'heading': 1.1384,
    'heading*first_para': 1.1384,
    'hedge': -0.2487,
    'intent': 2.3851,
    'item': -1.7132,
    'kv': 1.9365,
    'kv*kv_partial': 3.0085,
    'kv_partial': 3.0085,
    'label_analysis': -0.5144,
    'label_decision': 2.6256,
    'label_generic': 0.5305,
    'label_proposal': 2.5554,
    'last_para*commit': -1.0045,
    'last_para*intent': -1.1095,
    'later_sentence': -0.8599,
    'list_explore_share': -0.2604,
    'long': -0.8737,
    'numbered': 1.3278,
    'one_sentence': 2.7565,
    'one_sentence*after_list': 0.3509,
    'other_explicit': -2.1837,
    'past_report': -0.7465,
    'preparatory': -0.0107,
    'recommend': 0.7535,
    'referenced': 1.1407,
    'reply_affirm': -0.0943,
    'reply_defer': -1.1102,
    'reply_none': -0.2378,
    'reply_start': -0.6153,
    'short': -0.1551,
    'standalone': -1.1572,
    'standalone*after_list': -0.1644,
    'standing': 1.0833,
    'the_x_is': 2.9879,
    'under_explore': -0.3884,
    'under_options': 0.1530,
    'under_plan': -0.2013,
    'under_questions': -0.2095,
    'under_report': -0.4418,
    'you': 0.2542,
}
"""Logistic weights of the decision candidate features (``engine.capture.decision_features``)."""
DECISION_BIAS = -2.6836
DECISION_THRESHOLD = -0.7998
"""Log-odds the best candidate of a response must reach to be reported."""
DEDUP_THRESHOLD = 0.3
"""Share of matched words at or above which two texts that neither cover the other are duplicates."""
