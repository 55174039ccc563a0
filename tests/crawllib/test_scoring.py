import math

from crawllib.scoring import generator_sort_value
from crawllib.webpage import new_page


def test_nutch_opic_sort_value_is_the_score():
    assert generator_sort_value(new_page("u", score=2.5)) == 2.5
    assert generator_sort_value(new_page("u", score=2.5), init_sort=2.0) == 5.0


def test_beamcrawl_nan_score_sorts_as_zero():
    assert generator_sort_value(new_page("u", score=math.nan)) == 0.0
