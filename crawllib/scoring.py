"""Scoring (Nutch's scoring-opic plugin). So far: the generator's sort value."""

from __future__ import annotations

import math

from crawllib.webpage import WebPage


def generator_sort_value(page: WebPage, init_sort: float = 1.0) -> float:
    """1.x ``OPICScoringFilter.generatorSortValue``: the score times ``init_sort``.

    A NaN score counts as 0 (beamcrawl's choice: Java's float order puts NaN
    ahead of every real score, and a broken score should not win the topN).
    """
    score = page["score"] * init_sort
    return 0.0 if math.isnan(score) else score
