import math

import pytest

from crawllib.javanum import (
    INT_MAX,
    LONG_MIN,
    f32,
    java_div,
    round_int,
    round_long,
    to_long,
)


def test_f32_rounds_to_single_precision():
    assert f32(0.1) == 0.10000000149011612
    assert f32(1e40) == math.inf
    assert f32(-1e40) == -math.inf


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.5, 1),
        (-0.5, 0),
        (1.4999999, 1),
        (2.5, 3),
        (-2.5, -2),
        (math.nan, 0),
        (1e20, INT_MAX),
    ],
)
def test_java_math_round(value, expected):
    assert round_int(value) == expected


def test_long_casts_and_division_truncate_towards_zero():
    assert round_long(-1e30) == LONG_MIN
    assert to_long(-2.7) == -2
    assert to_long(math.nan) == 0
    assert java_div(-7, 2) == -3
    assert java_div(7, -2) == -3
