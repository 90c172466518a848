"""Qualifications on an aggregate of the transactions their filters match: the amount or the
quantity. Column: filter_id."""

from __future__ import annotations

from typing import Any

from ..emit import EmitContext
from ..program.models import TimePeriod
from ..validation.context import QualificationContext
from ..validation.locate import check_filters
from .base import Measure, QualificationKind, check_numeric_value


class Filters(QualificationKind):
    types = ("aggregated_amount", "aggregated_quantity")
    measures = "filters"

    def check(self, ctx: QualificationContext) -> None:
        check_numeric_value(ctx)
        check_filters(ctx, "filters", ctx.qualification.filters)

    def emit(self, g: EmitContext, qualification_id: int, q: Any, periods: dict[str, TimePeriod]) -> Measure:
        return Measure(filter_id=g.filter_id(q.filters, periods))


KIND = Filters()
