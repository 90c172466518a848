"""Typed models of the GET /programs JSON (pydantic v2), its building blocks: numbers, periods,
filters, properties, rates; and the lists OPERATORS, CALCULATORS, TRANSACTION_TYPES. A
qualification, an offer and a program are in base.py, the programs of a catalogue in
catalogue.py. Unknown extra fields are ignored."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

OPERATORS = (
    "greater_than_or_equal_to",
    "greater_than",
    "less_than_or_equal_to",
    "less_than",
    "equal_to",
)
# calculator -> the measure of a rate that names none (the strategies say which calculators they accept)
CALCULATORS: dict[str, str] = {
    "percent_of_amount": "percent",
    "dollars_per_unit": "dollars",
    "fixed_amount": "dollars",
    "dollars_per_coverage_unit": "dollars",
}
TRANSACTION_TYPES = (
    "retailer_purchases_from_distribution",
    "retailer_sales_to_growers",
    "contractor_purchases_from_distribution",
    "distributor_sales_to_retail",
    "inventory",
)
MAX_SCALE = 10
MAX_MAGNITUDE = Decimal(10) ** 28  # DECIMAL(38,10)
_SCALE_UNIT = Decimal(1).scaleb(-MAX_SCALE)


def _to_decimal(value: Any) -> Any:
    """Exact decimal from a JSON number or numeric string; anything else is left for pydantic to reject."""
    if type(value) is Decimal:  # a JSON number (parse_float=Decimal), the common case: immutable
        number = value
    elif isinstance(value, bool) or value is None:
        return value
    elif isinstance(value, (int, Decimal)):
        number = Decimal(value)
    elif isinstance(value, float):
        number = Decimal(repr(value))
    elif isinstance(value, str):
        try:
            number = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError("a number") from None
    else:
        return value
    if not number.is_finite():
        raise ValueError("a finite number")
    if abs(number) >= MAX_MAGNITUDE:
        raise ValueError("a number below 10^28 in absolute value")
    try:  # fast: a multiple of 10^-MAX_SCALE that fits the context's 28 digits passes the check below
        if number.quantize(_SCALE_UNIT) == number:
            return number
    except InvalidOperation:  # more than 28 digits at that scale
        pass
    exponent = number.normalize().as_tuple().exponent
    if isinstance(exponent, int) and -exponent > MAX_SCALE:
        raise ValueError(f"a number with at most {MAX_SCALE} decimal places")
    return number


Num = Annotated[Decimal, BeforeValidator(_to_decimal)]


def _blank_to_none(value: Any) -> Any:
    if isinstance(value, str) and not value.strip():
        return None
    return value


OptStr = Annotated[Union[str, None], BeforeValidator(_blank_to_none)]


class Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    @classmethod
    def from_validated(cls, values: dict[str, Any]) -> Any:
        """An instance of values already validated, one for every field (what `model_construct`
        makes, without its per-field default handling: a program is typed once per compile)."""
        obj = cls.__new__(cls)
        object.__setattr__(obj, "__dict__", values)
        object.__setattr__(obj, "__pydantic_fields_set__", set(values))
        object.__setattr__(obj, "__pydantic_extra__", None)
        object.__setattr__(obj, "__pydantic_private__", None)
        return obj


class TimePeriod(Model):
    key: str
    label: str | None = None
    start_date: dt.date
    end_date: dt.date


class Filter(Model):
    period_key: OptStr = None
    sku_keys: list[str] | None = None
    transaction_type: OptStr = None


class FilterGroup(Model):
    filters: list[Filter] = Field(default_factory=list)
    divisor: Num | None = None


class PropertyRef(Model):
    key: str
    type: Literal["number", "boolean"] = "number"
    level: Literal["request", "entity", "transaction"]


class Rate(Model):
    sku_key: str
    rate: Num
    measure: OptStr = None


class StandardIncentive(Model):
    key: OptStr = None
    label: str | None = None
    period_key: OptStr = None
    transaction_type: OptStr = None
    rates: list[Rate] = Field(default_factory=list)
