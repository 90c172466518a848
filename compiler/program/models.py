"""Typed models of the GET /programs JSON (pydantic v2). Unknown extra fields are ignored."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

# qualification type -> what it measures: "filters" (an aggregate of the transactions its filters
# match), "ratio" (a numerator over a denominator filter group) or "property" (a property's value)
QUALIFICATION_TYPES: dict[str, str] = {
    "aggregated_amount": "filters",
    "aggregated_quantity": "filters",
    "brand_count": "filters",
    "share_of_wallet_percent": "ratio",
    "yoy_amount_index": "ratio",
    "yoy_quantity_index": "ratio",
    "amount_average_index": "ratio",
    "property": "property",
}
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


class Qualification(Model):
    type: Literal[tuple(QUALIFICATION_TYPES)]  # type: ignore[valid-type]
    key: str
    label: str | None = None
    operator: Literal[OPERATORS]  # type: ignore[valid-type]
    value: Union[bool, Num]
    filters: list[Filter] | None = None
    numerator: FilterGroup | None = None
    denominator: FilterGroup | None = None
    brand_keys: list[str] | None = None
    excluded_sku_keys: list[str] | None = None
    property: PropertyRef | None = None


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


class OfferBase(Model):
    """The fields every offer has; each strategy's offer model (compiler/strategies/) adds its
    `strategy_key` and its typed incentive."""

    key: str
    label: str | None = None
    calculator_key: Literal[tuple(CALCULATORS)]  # type: ignore[valid-type]
    time_periods: list[TimePeriod] = Field(default_factory=list)
    qualifications: list[Qualification] = Field(default_factory=list)
    qualifier: str | None = None
    incentives: list[StandardIncentive] | None = None
    sku_keys: list[str] | None = None
    transaction_types: list[str] | None = None


class ProgramBase(Model):
    """The fields of a program but its offers (compiler/program/catalogue.py adds them)."""

    key: str
    label: str | None = None
    time_periods: list[TimePeriod] = Field(default_factory=list)
    qualifications: list[Qualification] = Field(default_factory=list)
    qualifier: str | None = None
