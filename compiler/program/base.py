"""The fields of a qualification, an offer and a program. A qualification's type is one of the
qualification kinds' (compiler/qualifications/, `QUALIFICATION_TYPES`); each strategy's offer
model (compiler/strategies/) adds an offer's `strategy_key` and its typed incentive, and
catalogue.py a program's offers."""

from __future__ import annotations

from typing import Literal, Union

from pydantic import Field

from ..qualifications import QUALIFICATION_TYPES
from .models import CALCULATORS, OPERATORS, Filter, FilterGroup, Model, Num, PropertyRef, StandardIncentive, TimePeriod


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


class ProgramBase(Model):
    """The fields of a program but its offers (catalogue.py adds them)."""

    key: str
    label: str | None = None
    time_periods: list[TimePeriod] = Field(default_factory=list)
    qualifications: list[Qualification] = Field(default_factory=list)
    qualifier: str | None = None
