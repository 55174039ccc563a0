"""Java number semantics the Nutch ports need: float32, Math.round, casts.

Nutch computes intervals, rates and scores in Java ``float`` and rounds with
``Math.round``; reproducing that bit for bit keeps schedules and scores
identical to Nutch's to the millisecond.
"""

from __future__ import annotations

import math
import struct

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1


_FLOAT = struct.Struct("f")
_PACK, _UNPACK = _FLOAT.pack, _FLOAT.unpack


def f32(value: float) -> float:
    """``value`` rounded to single precision, as a Java ``float``."""
    try:
        result: float = _UNPACK(_PACK(value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return result


def _round_half_up(value: float, low: int, high: int) -> int:
    """Java ``Math.round``: nearest integer, halves up, saturated to [low, high]."""
    if math.isnan(value):
        return 0
    if value >= high:
        return high
    if value <= low:
        return low
    floor = math.floor(value)
    return floor + 1 if value - floor >= 0.5 else floor


def round_int(value: float) -> int:
    """``Math.round(float)``, an int."""
    return _round_half_up(value, INT_MIN, INT_MAX)


def round_long(value: float) -> int:
    """``Math.round(double)``, a long."""
    return _round_half_up(value, LONG_MIN, LONG_MAX)


def to_long(value: float) -> int:
    """Java ``(long) value``: truncated towards zero, saturated, NaN as 0."""
    if math.isnan(value):
        return 0
    if value >= LONG_MAX:
        return LONG_MAX
    if value <= LONG_MIN:
        return LONG_MIN
    return int(value)


def java_div(dividend: int, divisor: int) -> int:
    """Java integer division: the quotient truncated towards zero."""
    quotient = abs(dividend) // abs(divisor)
    return quotient if (dividend >= 0) == (divisor > 0) else -quotient
