"""Numbers and counts as a person writes them: plurals, ranges, significant digits, SI prefixes.

Every printed summary (the command line, the notebooks, the panels' read-outs, figure labels)
formats its numbers here, so that one rule holds everywhere:

* a count agrees with its noun: ``plural(1, "jump")`` is "1 jump", ``plural(2, "jump")`` "2 jumps";
* a value shows at most ``sig`` significant digits (trailing zeros dropped, as ``:g`` does), not a
  fixed number of decimals, so a small nonzero value is never printed as "0.0" and a large one
  never as "1.2e+03": ``num(1234.5)`` is "1230", ``num(2.3e-8)`` "2.3×10⁻⁸", ``num(0.0)`` "0"
  (an exact zero needs no decimals);
* with ``si=True`` the unit takes an SI prefix: ``num(1.7e-4, 2, "s", si=True)`` is "170 µs",
  ``num(2.49e4, 3, "N", si=True)`` "24.9 kN";
* at a fixed resolution (``fixed``) a value that rounds to zero is "0", never "-0.000";
* a range whose ends agree at the shown precision is one value: ``span(1.7e-4, 1.71e-4, 2,
  "s", si=True)`` is "170 µs", not "170–170 µs";
* an integer (a count) prints with all its digits;
* a value that is not a number (NaN, None) prints as "–", an infinite one as "∞".
"""
from __future__ import annotations

import math
import numbers

__all__ = ["noun", "plural", "num", "fixed", "span", "percent", "DASH"]

DASH = "–"
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
_PREFIXES = ((1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"),
             (1e-12, "p"))


def noun(n, word: str, many: str | None = None) -> str:
    """``word`` in the number ``n`` asks for, without ``n``: "field" for 1, "fields" otherwise.

    ``many`` is the plural where it is not ``word + "s"`` (e.g. ``noun(n, "body", "bodies")``)."""
    return word if n == 1 else (many or word + "s")


def plural(n, word: str, many: str | None = None) -> str:
    """``n`` and ``word`` in the number ``n`` asks for: "1 jump", "0 jumps", "3 stick intervals"."""
    return f"{n} {noun(n, word, many)}"


def _fixed(x: float, sig: int) -> str:
    """``x`` with ``sig`` significant digits in positional notation (no exponent)."""
    exp = math.floor(math.log10(abs(x)))
    rounded = float(f"{x:.{sig - 1}e}")           # round first: 9.996 -> 10.0 moves the exponent
    if rounded != 0:
        exp = math.floor(math.log10(abs(rounded)))
    decimals = max(0, sig - 1 - exp)
    return _trim(f"{rounded:.{decimals}f}")


def _trim(digits: str) -> str:
    """Without trailing zeros after the decimal point, as ``:g`` writes: "10.0" -> "10"."""
    return digits.rstrip("0").rstrip(".") if "." in digits else digits


def _scientific(x: float, sig: int) -> str:
    mant, exp = f"{x:.{sig - 1}e}".split("e")
    return f"{_trim(mant)}×10{str(int(exp)).translate(_SUPERSCRIPT)}"


def num(x, sig: int = 3, unit: str = "", si: bool = False, sign: bool = False,
        zero: float = 0.0) -> str:
    """``x`` with ``sig`` significant digits (trailing zeros dropped), and ``unit`` after a space.

    Positional notation from 10⁻⁴ to below 10⁶, as ``:g`` (``num(1234.5)`` "1230", ``num(0.00123)``
    "0.00123"), else a power of ten ("2.3×10⁻⁸").  An exact zero is "0".  ``si`` moves a power of
    a thousand into the unit's prefix ("0.17 ms" for 1.7e-4 s is "170 µs").  ``sign`` writes "+"
    before a positive value.  NaN or None is "–", an infinite value "∞" (with its sign).
    ``zero`` is the resolution below which the caller knows a value is zero (round-off, e.g. the
    energy change of an elastic run): ``|x| < zero`` prints as "0", so a checked output does not
    print round-off digits that differ between CPUs."""
    tail = f" {unit}" if unit else ""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return DASH
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return ("+" if sign and x > 0 else "") + f"{int(x)}{tail}"   # a count: every digit
    x = float(x)
    if math.isnan(x):
        return DASH
    if math.isinf(x):
        return ("-" if x < 0 else "+" if sign else "") + "∞" + tail
    plus = "+" if sign and x > 0 else ""
    if abs(x) < zero or x == 0:
        return "0" + tail
    if si and unit:
        rounded = abs(float(f"{x:.{sig - 1}e}"))
        for scale, prefix in _PREFIXES:
            if rounded >= scale * (1 - 1e-12):
                break
        return plus + _fixed(x / scale, sig) + f" {prefix}{unit}"
    body = _fixed(x, sig) if 1e-4 <= abs(x) < 1e6 else _scientific(x, sig)
    return plus + body + tail


def fixed(x, decimals: int, unit: str = "", sign: bool = False) -> str:
    """``x`` to ``decimals`` places (a fixed resolution, e.g. 1e-6 J), but a value that rounds to
    zero is "0" at that resolution, not "0.000000" or "-0.000000": ``fixed(3.0130817, 6, "J")`` is
    "3.013082 J", ``fixed(-2e-9, 6, "J")`` "0 J"."""
    if x is None or not math.isfinite(float(x)):
        return num(x, unit=unit, sign=sign)
    tail = f" {unit}" if unit else ""
    x = float(x)
    if round(x, decimals) == 0:
        return "0" + tail
    return f"{x:+.{decimals}f}{tail}" if sign else f"{x:.{decimals}f}{tail}"


def span(lo, hi, sig: int = 3, unit: str = "", si: bool = False) -> str:
    """The range ``lo``–``hi`` as ``num`` prints its ends, or one value where they print alike.

    With ``si`` both ends share the prefix chosen for the larger one ("0.16–0.17 ms")."""
    if si and unit:
        big = num(max(abs(lo), abs(hi)), sig, unit, si=True)
        prefix_unit = big.split(" ", 1)[1]
        scale = dict((p, s) for s, p in _PREFIXES)[prefix_unit[:-len(unit)]]
        a, b = num(lo / scale, sig), num(hi / scale, sig)
        tail = f" {prefix_unit}"
    else:
        a, b = num(lo, sig), num(hi, sig)
        tail = f" {unit}" if unit else ""
    return (a if a == b else f"{a}{DASH}{b}") + tail


def percent(p, sig: int = 2, sign: bool = False) -> str:
    """A percentage ``p`` (already multiplied by 100) with ``sig`` significant digits: "1200 %",
    "0.42 %", "2.3×10⁻⁶ %", "0 %"."""
    return num(p, sig, "%", sign=sign)
