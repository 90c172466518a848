"""What a qualification kind is: the qualification types it covers and what they measure, the
checks specific to them and the columns they fill in their `qualifications` row (and any rows of
their own), emitted through `EmitContext` (compiler/emit.py).

A kind is one module of this package defining a subclass of `QualificationKind` and naming an
instance of it `KIND`; compiler/qualifications/__init__.py lists the modules."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, NamedTuple

from ..emit import EmitContext
from ..program.models import TimePeriod
from ..validation.context import QualificationContext


class Measure(NamedTuple):
    """The columns of a `qualifications` row its kind fills (compiler/rule_tables.py)."""

    filter_id: int | None = None
    numerator_filter_id: int | None = None
    denominator_filter_id: int | None = None
    divisor: str | None = None  # as number_text
    property_key: str | None = None
    property_level: str | None = None
    has_brand_list: bool = False


class QualificationKind(ABC):
    """The qualification types measured the same way (`type` of a qualification)."""

    types: ClassVar[tuple[str, ...]]  # in the order of the rule tables' accepted values
    # what they measure: "filters" (an aggregate of the transactions its filters match), "ratio" (a
    # numerator over a denominator filter group) or "property" (a property's value)
    measures: ClassVar[str]

    @abstractmethod
    def check(self, ctx: QualificationContext) -> None:
        """Add the problems of the qualification `ctx.qualification` (a `Qualification` of
        compiler/program/base.py) specific to its kind (`ctx.add`, at a path inside it)."""

    @abstractmethod
    def emit(self, g: EmitContext, qualification_id: int, q: Any, periods: dict[str, TimePeriod]) -> Measure:
        """The columns of the qualification's `qualifications` row its kind fills; any rows of its
        own added to their tables (`g.add_row`)."""


def check_numeric_value(ctx: QualificationContext) -> None:
    """The qualification compares a number: its value is not a boolean."""
    q = ctx.qualification
    if isinstance(q.value, bool):
        ctx.add("value", f"{q.type} needs a numeric value", q.value, "a number")
