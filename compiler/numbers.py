"""Decimals as the rule tables and the exports write them (no pydantic here: `incentives export`
does not load the program models)."""

from __future__ import annotations

from decimal import Decimal


def number_text(value: Decimal) -> str:
    """A decimal written without trailing zeros or exponent: 15.0 -> '15', 1.90 -> '1.9'."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text
