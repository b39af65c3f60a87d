"""flexlib.text: counts, significant digits, ranges and zeros as a person writes them (expected
strings written out by hand from the rules in the module's docstring)."""
import math

import numpy as np
import pytest

from flexlib.text import DASH, fixed, noun, num, percent, plural, span


def test_plural_and_noun():
    assert plural(1, "jump") == "1 jump" and plural(0, "jump") == "0 jumps"
    assert plural(2, "body", "bodies") == "2 bodies" and noun(1, "field") == "field"
    assert plural(np.int64(3), "impact") == "3 impacts"


@pytest.mark.parametrize("x,sig,expected", [
    (1234.5, 3, "1230"), (0.00123, 3, "0.00123"), (2.3e-8, 2, "2.3×10⁻⁸"), (0.0, 3, "0"),
    (-0.0, 3, "0"), (9.996, 3, "10"), (0.3329419, 4, "0.3329"), (-2.38245, 3, "-2.38"),
    (1.5e7, 2, "1.5×10⁷"), (2.8e-6, 2, "2.8×10⁻⁶"), (0.00028, 2, "0.00028"), (12345678, 3, "12345678"),
])
def test_num_keeps_significant_digits(x, sig, expected):
    assert num(x, sig) == expected


def test_num_units_prefixes_and_special_values():
    assert num(1.7e-4, 2, "s", si=True) == "170 µs"
    assert num(2.49e4, 3, "N", si=True) == "24.9 kN"
    assert num(9.9996e-4, 3, "s", si=True) == "1 ms"                # rounding moves the prefix
    assert num(1e-12, 3, "s", si=True) == "1 ps"
    assert num(math.inf, unit="N") == "∞ N" and num(-math.inf) == "-∞"
    assert num(math.nan) == DASH and num(None) == DASH
    assert num(0.5, 2, "J", sign=True) == "+0.5 J" and num(-0.5, 2, "J", sign=True) == "-0.5 J"
    assert num(-3e-9, 3, "J", sign=True, zero=5e-4) == "0 J"


def test_fixed_resolution_prints_a_rounded_zero_as_zero():
    assert fixed(3.0130817, 6, "J") == "3.013082 J"
    assert fixed(-2e-9, 6, "J") == "0 J" and fixed(0.0, 4) == "0"
    assert fixed(-2.38, 3, "J", sign=True) == "-2.380 J" and fixed(0.06, 3) == "0.060"


def test_span_prints_one_value_when_the_ends_agree():
    assert span(1.7e-4, 1.704e-4, 2, "s", si=True) == "170 µs"
    assert span(1.6e-4, 1.7e-4, 2, "s", si=True) == "160–170 µs"
    assert span(10.5e-3, 10.9e-3, 3, "s", si=True) == "10.5–10.9 ms"
    assert span(0.999e-3, 1.2e-3, 2, "s", si=True) == "1–1.2 ms"
    assert span(8, 11) == "8–11" and span(7, 7) == "7"
    assert span(0.49, 1.13, 3, "s") == "0.49–1.13 s"


def test_percent():
    assert percent(1234.0) == "1200 %" and percent(0.42) == "0.42 %"
    assert percent(2.3e-6) == "2.3×10⁻⁶ %" and percent(0.0) == "0 %"
    assert percent(0.259, 3, sign=True) == "+0.259 %"
