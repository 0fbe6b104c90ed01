"""Numbers fit on the labelled data in ``tests/data``; written by ``python -m bench.fit_capture``.

Do not edit by hand: change the features or the data and run the fit again. Cross-validated figures
for these choices are printed by ``python -m bench.quality``.
"""

from __future__ import annotations

DECISION_WEIGHTS: dict[str, float] = {
    'after_fence': 0.6012,
    'after_fence*choice': 0.0611,
    'after_fence*commit': 0.4998,
    'after_fence*intent': 0.5656,
    'after_list': -0.1649,
    'also': -0.7894,
    'choice': 3.5603,
    'chore': -1.4100,
    'commit': 2.1184,
    'conclusion': 1.4843,
    'conclusion*standalone': 1.4843,
    'conditional': -1.0984,
    'doc_explore': -1.1264,
    'doc_explore*first_item': -0.1570,
    'doc_many_bold': -1.1071,
    'doc_question_end': -0.9135,
    'doc_question_end*intent': -0.3559,
    'doc_undecided': 0.1605,
    'done': -0.1750,
    'explore_step': -0.8330,
    'explore_step*under_plan': -0.3090,
    'filler': -1.0058,
    'first_item': 0.8036,
    'first_item*reply_start': 0.8328,
    'first_item*under_explore': -0.3570,
    'first_item*under_plan': 3.3659,
    'first_item*under_plan*reply_affirm': 0.4740,
    'first_para*past_report': -0.5235,
    'heading': 1.1392,
    'heading*first_para': 1.1392,
    'hedge': -0.2580,
    'intent': 2.3876,
    'item': -1.6646,
    'kv': 1.9531,
    'kv*kv_partial': 2.9510,
    'kv_partial': 2.9510,
    'label_analysis': -0.5102,
    'label_decision': 2.6281,
    'label_generic': 0.6272,
    'label_proposal': 2.5561,
    'last_para*commit': -0.9980,
    'last_para*intent': -1.1076,
    'later_sentence': -0.8593,
    'list_explore_share': -0.3358,
    'long': -0.8917,
    'numbered': 0.6249,
    'one_sentence': 2.7507,
    'one_sentence*after_list': 0.3513,
    'other_explicit': -2.1932,
    'past_report': -0.7038,
    'preparatory': -0.0382,
    'recommend': 0.7464,
    'referenced': 1.1343,
    'reply_affirm': -0.0818,
    'reply_defer': -1.0829,
    'reply_none': -0.2231,
    'reply_start': -0.6148,
    'short': -0.1744,
    'standalone': -1.1670,
    'standalone*after_list': -0.1649,
    'standing': 1.0839,
    'the_x_is': 2.9951,
    'under_explore': -0.4765,
    'under_options': 0.1311,
    'under_plan': 0.3647,
    'under_questions': -0.2351,
    'under_report': -0.4869,
    'you': 0.2511,
}
"""Logistic weights of the decision candidate features (``engine.capture.decision_features``)."""
DECISION_BIAS = -2.6835
DECISION_THRESHOLD = -0.7615
"""Log-odds the best candidate of a response must reach to be reported."""
DEDUP_THRESHOLD = 0.3
"""Share of matched words at or above which two texts that neither cover the other are duplicates."""
