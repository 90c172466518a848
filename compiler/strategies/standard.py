"""The standard strategy: rates per SKU (`incentives`: an array of {period, transaction type, rates}),
earned on every matching transaction. Rule table: standard_rates."""

from __future__ import annotations

from typing import Any, Literal

from ..emit import EmitContext
from ..program.base import OfferBase, ProgramBase
from ..program.models import CALCULATORS, StandardIncentive, TimePeriod
from ..validation.context import OfferContext
from ..validation.locate import check_period_and_type, dupes
from .base import NO_THRESHOLD, Strategy, Threshold


class StandardOffer(OfferBase):
    strategy_key: Literal["standard"]
    incentives: list[StandardIncentive]
    incentive: dict[str, Any] | None = None  # not read


def standard_key(key: str | None, period_key: str | None, transaction_type: str | None) -> str:
    """The key of an incentive of a standard offer (made of its period and type when it has none)."""
    return key or f"{period_key or 'any'}_{transaction_type or 'any'}"


class Standard(Strategy):
    key = "standard"
    calculators = ("percent_of_amount", "dollars_per_unit", "fixed_amount")
    offer_model = StandardOffer

    def check(self, ctx: OfferContext) -> None:
        offer = ctx.offer
        if offer.incentives is None:
            ctx.add("incentives", "missing field", None, "an incentives array for a standard offer")
            return
        keys = [standard_key(i.key, i.period_key, i.transaction_type) for i in offer.incentives]
        dupes(ctx, lambda i: f"incentives[{i}].key", keys, "incentive")
        for i_i, inc in enumerate(offer.incentives):
            check_period_and_type(ctx.inside(f"incentives[{i_i}]"), inc.period_key, inc.transaction_type)
            dupes(ctx, lambda r: f"incentives[{i_i}].rates[{r}].sku_key", [r.sku_key for r in inc.rates], "rate SKU")

    def emit(self, g: EmitContext, program: ProgramBase, offer: StandardOffer,
             periods: dict[str, TimePeriod]) -> tuple[Threshold, int | None]:
        numbers = g.numbers
        default_measure = CALCULATORS[offer.calculator_key]
        for inc in offer.incentives or []:
            key = standard_key(inc.key, inc.period_key, inc.transaction_type)
            start, end = g.period(periods, inc.period_key)
            pk, ok, ttype, s, e = program.key, offer.key, inc.transaction_type, start.isoformat(), end.isoformat()
            g.add_rows("standard_rates", [(pk, ok, key, r.sku_key, ttype, s, e, r.measure or default_measure,
                                           numbers[r.rate]) for r in inc.rates])
        return NO_THRESHOLD, None


STRATEGY = Standard()
