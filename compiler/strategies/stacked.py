"""The stacked strategy: SKU sets converted into coverage units; a stack of sets pays for the
coverage every set of it reaches. Rule tables: stacked_set_skus, stacked_stacks."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from ..errors import IssueCollector
from ..program.models import CALCULATORS, Model, Num, OfferBase, OptStr, Rate, TimePeriod, number_text
from ..validation.locate import Where, check_period_and_type, dupes
from .base import NO_THRESHOLD, IncentiveObjectStrategy, Threshold


class ConversionRate(Model):
    sku_key: str
    rate: Num
    from_: str = Field(alias="from")


class Conversion(Model):
    coverage_unit: str | None = None
    rates: list[ConversionRate] = Field(min_length=1)


class SkuSet(Model):
    key: str
    period_key: OptStr = None
    transaction_type: OptStr = None
    conversion: Conversion
    rates: list[Rate] = Field(default_factory=list)


class Stack(Model):
    key: OptStr = None
    sku_set_keys: list[str] = Field(min_length=1)


class StackedIncentive(Model):
    sku_sets: list[SkuSet] = Field(min_length=1)
    stacks: list[Stack] = Field(min_length=1)


class StackedOffer(OfferBase):
    strategy_key: Literal["stacked"]
    incentive: StackedIncentive


def stack_key(stack: Stack) -> str:
    """A stack's key (its sets' keys joined when it has none)."""
    return stack.key or "_and_".join(stack.sku_set_keys)


class Stacked(IncentiveObjectStrategy):
    key = "stacked"
    calculators = ("dollars_per_coverage_unit",)
    offer_model = StackedOffer
    incentive_model = StackedIncentive

    def check_incentive(self, c: IssueCollector, w: Where, op: str, offer: Any, incentive: StackedIncentive,
                        periods: set[str]) -> None:
        inc = incentive
        sets = {s.key: s for s in inc.sku_sets}
        dupes(c, lambda i: w(f"{op}.incentive.sku_sets[{i}].key"), [s.key for s in inc.sku_sets], "SKU set")
        for s_i, s in enumerate(inc.sku_sets):
            sp = f"{op}.incentive.sku_sets[{s_i}]"
            check_period_and_type(c, w, sp, s.period_key, s.transaction_type, periods)
            dupes(c, lambda i: w(f"{sp}.conversion.rates[{i}].sku_key"),
                  [r.sku_key for r in s.conversion.rates], "conversion SKU")
            dupes(c, lambda i: w(f"{sp}.rates[{i}].sku_key"), [r.sku_key for r in s.rates], "rate SKU")
            converted = {r.sku_key for r in s.conversion.rates}
            for r_i, r in enumerate(s.conversion.rates):
                if r.rate <= 0:
                    c.add(w(f"{sp}.conversion.rates[{r_i}].rate"), "conversion rate must be positive", r.rate,
                          "a number > 0 (units of `from` per coverage unit)")
            for r_i, r in enumerate(s.rates):
                if r.sku_key not in converted:
                    c.add(w(f"{sp}.rates[{r_i}].sku_key"), "SKU has a rate but no conversion rate", r.sku_key,
                          "one of the set's conversion SKUs: " + ", ".join(sorted(converted)))
        stack_keys = []
        for k_i, st in enumerate(inc.stacks):
            kp = f"{op}.incentive.stacks[{k_i}]"
            stack_keys.append(stack_key(st))
            dupes(c, lambda i: w(f"{kp}.sku_set_keys[{i}]"), list(st.sku_set_keys), "stack SKU set")
            owner: dict[str, str] = {}
            for name in st.sku_set_keys:
                if name not in sets:
                    c.add(w(f"{kp}.sku_set_keys"), "stack names a SKU set that is not defined", name,
                          "one of " + ", ".join(sorted(sets)))
                    continue
                for r in sets[name].conversion.rates:
                    if r.sku_key in owner and owner[r.sku_key] != name:
                        c.add(w(f"{kp}.sku_set_keys"), f"SKU {r.sku_key!r} is in two sets of this stack",
                              f"{owner[r.sku_key]} and {name}", "each SKU in one set of a stack")
                    owner.setdefault(r.sku_key, name)
        dupes(c, lambda i: w(f"{op}.incentive.stacks[{i}].key"), stack_keys, "stack")

    def emit(self, g: Any, program: Any, offer: StackedOffer, periods: dict[str, TimePeriod]) -> tuple[Threshold, int | None]:
        calc = offer.calculator_key
        t = g.rules.tables
        for s in offer.incentive.sku_sets:
            start, end = g.period(periods, s.period_key)
            pay = {r.sku_key: r for r in s.rates}
            for conv in s.conversion.rates:
                r = pay.get(conv.sku_key)
                t["stacked_set_skus"].append((
                    program.key, offer.key, s.key, conv.sku_key, s.transaction_type, start.isoformat(),
                    end.isoformat(), conv.from_, number_text(conv.rate), number_text(r.rate) if r else "0",
                    (r.measure if r and r.measure else CALCULATORS[calc]),
                ))
        for st in offer.incentive.stacks:
            key = stack_key(st)
            for name in st.sku_set_keys:
                t["stacked_stacks"].append((program.key, offer.key, key, name))
        return NO_THRESHOLD, None


STRATEGY = Stacked()
