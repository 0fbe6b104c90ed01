"""Numbers fit on the labelled data in ``tests/data``; written by ``python -m bench.fit_capture``.

Do not edit by hand: change the features or the data and run the fit again. Cross-validated figures
for these choices are printed by ``python -m bench.quality``.
"""

from __future__ import annotations

DECISION_WEIGHTS: dict[str, float] = {
    'after_fence': 0.6004,
    'after_fence*choice': 0.0664,
    'after_fence*commit': 0.4973,
    'after_fence*intent': 0.5669,
    'after_list': -0.1645,
    'also': -0.7895,
    'choice': 3.5532,
    'chore': -1.4120,
    'commit': 2.1255,
    'conclusion': 1.5053,
    'conclusion*standalone': 1.5053,
    'conditional': -1.1053,
    'doc_explore': -1.1237,
    'doc_explore*first_item': -0.1323,
    'doc_many_bold': -1.0769,
    'doc_question_end': -0.8867,
    'doc_question_end*intent': -0.3360,
    'doc_undecided': 0.1936,
    'done': -0.1769,
    'explore_step': -0.8075,
    'explore_step*under_plan': -0.2724,
    'filler': -1.0034,
    'first_item': 0.7748,
    'first_item*reply_start': 0.9140,
    'first_item*under_explore': -0.2527,
    'first_item*under_plan': 3.0964,
    'first_item*under_plan*reply_affirm': 0.2537,
    'first_para*past_report': -0.5173,
    'heading': 1.1384,
    'heading*first_para': 1.1384,
    'hedge': -0.2487,
    'intent': 2.3850,
    'item': -1.7112,
    'kv': 1.9354,
    'kv*kv_partial': 3.0074,
    'kv_partial': 3.0074,
    'label_analysis': -0.5144,
    'label_decision': 2.6256,
    'label_generic': 0.5299,
    'label_proposal': 2.5552,
    'last_para*commit': -1.0046,
    'last_para*intent': -1.1094,
    'later_sentence': -0.8600,
    'list_explore_share': -0.2613,
    'long': -0.8736,
    'numbered': 1.3271,
    'one_sentence': 2.7565,
    'one_sentence*after_list': 0.3509,
    'other_explicit': -2.1839,
    'past_report': -0.7467,
    'preparatory': -0.0108,
    'recommend': 0.7535,
    'referenced': 1.1407,
    'reply_affirm': -0.0941,
    'reply_defer': -1.1088,
    'reply_none': -0.2375,
    'reply_start': -0.6155,
    'short': -0.1551,
    'standalone': -1.1580,
    'standalone*after_list': -0.1645,
    'standing': 1.0833,
    'the_x_is': 2.9880,
    'under_explore': -0.3817,
    'under_options': 0.1515,
    'under_plan': -0.2031,
    'under_questions': -0.2385,
    'under_report': -0.4427,
    'you': 0.2540,
}
"""Logistic weights of the decision candidate features (``engine.capture.decision_features``)."""
DECISION_BIAS = -2.6830
DECISION_THRESHOLD = -0.8004
"""Log-odds the best candidate of a response must reach to be reported."""
DEDUP_THRESHOLD = 0.3
"""Share of matched words at or above which two texts that neither cover the other are duplicates."""
