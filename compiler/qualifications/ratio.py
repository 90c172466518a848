"""Qualifications on a ratio: a numerator over a denominator filter group (share of wallet, year
over year, the amount over an average of earlier periods: the denominator's `divisor`). Columns:
numerator_filter_id, denominator_filter_id, divisor."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, ClassVar

from ..emit import EmitContext
from ..numbers import number_text
from ..program.models import TimePeriod
from ..validation.context import QualificationContext
from ..validation.locate import check_filters
from .base import Measure, QualificationKind, check_numeric_value


class Ratio(QualificationKind):
    types = ("share_of_wallet_percent", "yoy_amount_index", "yoy_quantity_index", "amount_average_index")
    measures = "ratio"
    # the types whose denominator is divided by its `divisor` (positive; 1 when absent)
    divided: ClassVar[tuple[str, ...]] = ("amount_average_index",)

    def check(self, ctx: QualificationContext) -> None:
        q = ctx.qualification
        check_numeric_value(ctx)
        for part in ("numerator", "denominator"):
            group = getattr(q, part)
            if group is None:
                ctx.add(part, "missing field", None, f"{part} {{filters: [...]}} for {q.type}")
            else:
                check_filters(ctx, f"{part}.filters", group.filters)
        if q.type in self.divided and q.denominator is not None and q.denominator.divisor is not None:
            if q.denominator.divisor <= 0:
                ctx.add("denominator.divisor", "divisor must be positive", q.denominator.divisor, "a number > 0")

    def emit(self, g: EmitContext, qualification_id: int, q: Any, periods: dict[str, TimePeriod]) -> Measure:
        numerator = g.filter_id(q.numerator.filters if q.numerator else None, periods)
        denominator = g.filter_id(q.denominator.filters if q.denominator else None, periods)
        divisor = None
        if q.type in self.divided:
            divisor = number_text(q.denominator.divisor if q.denominator and q.denominator.divisor is not None
                                  else Decimal(1))
        return Measure(numerator_filter_id=numerator, denominator_filter_id=denominator, divisor=divisor)


KIND = Ratio()
