"""The stepped strategy: tiers of a threshold (an aggregated amount or quantity, or a property);
the tier reached sets the rate paid on the earning filter's transactions. Rule table:
stepped_tiers (and the threshold and earning filters of the offer's `offers` row)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..emit import EmitContext
from ..numbers import number_text
from ..program.base import OfferBase, ProgramBase
from ..program.models import CALCULATORS, Filter, Model, Num, OptStr, PropertyRef, TimePeriod
from ..validation.context import OfferContext
from ..validation.locate import check_filters, dupes
from .base import IncentiveObjectStrategy, Threshold


class Tier(Model):
    key: OptStr = None
    threshold: Num
    value: Num | None = None
    rate: Num | None = None
    measure: OptStr = None


class ThresholdDefinition(Model):
    type: Literal["aggregated_amount", "aggregated_quantity", "property"]
    filters: list[Filter] | None = None
    property: PropertyRef | None = None


class SteppedIncentive(Model):
    filters: list[Filter] = Field(default_factory=list)
    threshold_definition: ThresholdDefinition
    rates: list[Tier] = Field(min_length=1)


class SteppedOffer(OfferBase):
    strategy_key: Literal["stepped"]
    incentive: SteppedIncentive


def tier_key(tier: Tier, calculator: str) -> str:
    """A tier's key (made of its rate, measure and threshold when it has none)."""
    if tier.key:
        return tier.key
    value = tier.value if tier.value is not None else tier.rate
    measure = tier.measure or CALCULATORS[calculator]
    return f"{number_text(value) if value is not None else 'none'}_{measure}_greater_than_or_equal_to_{number_text(tier.threshold)}"


class Stepped(IncentiveObjectStrategy):
    key = "stepped"
    calculators = ("percent_of_amount", "dollars_per_unit", "fixed_amount")
    offer_model = SteppedOffer
    incentive_model = SteppedIncentive

    def check_incentive(self, ctx: OfferContext, incentive: SteppedIncentive) -> None:
        at = ctx.inside("incentive")
        check_filters(at, "filters", incentive.filters)
        td = incentive.threshold_definition
        if td.type == "property":
            if td.property is None:
                at.add("threshold_definition.property", "missing field", None, "a property {key, type, level}")
            elif td.property.level == "transaction" and ctx.offer.calculator_key == "fixed_amount":
                at.add("threshold_definition.property.level", "fixed_amount cannot use a transaction-level threshold",
                       td.property.level, "request or entity")
        else:
            check_filters(at, "threshold_definition.filters", td.filters)
        keys = []
        for t_i, tier in enumerate(incentive.rates):
            if tier.value is not None and tier.rate is not None and tier.value != tier.rate:
                at.add(f"rates[{t_i}]", "tier has both value and rate, and they differ",
                       f"value={tier.value}, rate={tier.rate}", "one of them (or equal)")
            if tier.value is None and tier.rate is None:
                at.add(f"rates[{t_i}]", "tier has no rate", None, "a value or rate")
            keys.append(tier_key(tier, ctx.offer.calculator_key))
        dupes(at, lambda i: f"rates[{i}].key", keys, "tier")
        dupes(at, lambda i: f"rates[{i}].threshold", [number_text(t.threshold) for t in incentive.rates],
              "tier threshold")

    def emit(self, g: EmitContext, program: ProgramBase, offer: SteppedOffer,
             periods: dict[str, TimePeriod]) -> tuple[Threshold, int | None]:
        calc = offer.calculator_key
        inc = offer.incentive
        td = inc.threshold_definition
        threshold: Threshold
        if td.type == "property":
            assert td.property is not None
            threshold = ("property", None, td.property.key, td.property.level)
        else:
            threshold = (td.type, g.filter_id(td.filters, periods), None, None)
        earning = g.filter_id(inc.filters, periods)
        for rank, tier in enumerate(sorted(inc.rates, key=lambda x: x.threshold), start=1):
            rate = tier.value if tier.value is not None else tier.rate
            g.add_row("stepped_tiers", (
                program.key, offer.key, tier_key(tier, calc), number_text(tier.threshold),
                number_text(rate) if rate is not None else None, tier.measure or CALCULATORS[calc], rank,
            ))
        return threshold, earning


STRATEGY = Stepped()
