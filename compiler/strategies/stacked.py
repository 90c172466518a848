"""The stacked strategy: SKU sets converted into coverage units; a stack of sets pays for the
coverage every set of it reaches. Rule tables: stacked_set_skus, stacked_stacks."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from math import gcd, lcm
from typing import Literal

from pydantic import Field

from ..emit import EmitContext
from ..numbers import number_text
from ..program.base import OfferBase, ProgramBase
from ..program.models import CALCULATORS, Model, Num, OptStr, Rate, TimePeriod
from ..validation.context import OfferContext, Scope
from ..validation.locate import check_period_and_type, dupes
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


# --------------------------------------------------------------------------- exact coverage
# A conversion rate r = n/d is a decimal, so coverage q / r is an exact rational known up to the
# quantity. Each set gets a common conversion rate R (the smallest decimal that is an integer
# multiple w of every rate of the set: R = lcm(n) / gcd(d)), so a transaction's coverage is
# q x w / R and the set's coverage W / R with W = the sum of q x w, an exact decimal. Each offer
# gets one common denominator L (an integer multiple m of every set's R), so the stacks'
# overlaps sum exactly as (sum of W x m) / L. docs/semantics.md ("Stacked coverage") states the
# bounds below and why the engines compute every quotient exactly within them.

MAX_SET_CONVERSION_RATE = Decimal(10) ** 4
MAX_RATE_TIMES_WEIGHT = 10 ** 7  # any set's common rate x any set's coverage weight, in one offer
MAX_WEIGHT_TIMES_MULTIPLIER = 10 ** 18
MAX_OFFER_DENOMINATOR = 10 ** 24
MAX_PAY_RATE = Decimal(10) ** 10  # dollars per coverage unit
MAX_PAY_TIMES_WEIGHTS = 10 ** 16  # a rate x the offer's largest coverage weight, squared
MAX_PAY_PER_UNIT = Decimal(10) ** 16  # dollars per unit of `from`: rate / conversion rate
MAX_STACKS = 99


@dataclass(frozen=True)
class SetScale:
    """A set's exact coverage: coverage of q units of SKU s = q x weights[s] / rate."""

    rate: Fraction  # the set's common conversion rate R (a decimal of at most 10 places)
    weights: dict[str, int]  # SKU -> w, with w x its conversion rate = R
    multiplier: int = 1  # m, with R x m = the offer's common denominator


def coverage_scales(sets: list[SkuSet]) -> dict[str, SetScale]:
    """The exact coverage scales of an offer's sets (set key -> SetScale)."""
    scales: dict[str, SetScale] = {}
    for s in sets:
        rates = [Fraction(r.rate) for r in s.conversion.rates if r.rate > 0]
        if not rates:
            continue
        common = Fraction(lcm(*(r.numerator for r in rates)), gcd(*(r.denominator for r in rates)))
        weights = {r.sku_key: int(common / Fraction(r.rate)) for r in s.conversion.rates if r.rate > 0}
        scales[s.key] = SetScale(common, weights)
    if scales:
        denominator = lcm(*(sc.rate.numerator for sc in scales.values()))
        scales = {k: SetScale(sc.rate, sc.weights, int(denominator / sc.rate)) for k, sc in scales.items()}
    return scales


def offer_denominator(scales: dict[str, SetScale]) -> int:
    """The offer's common coverage denominator L (= every set's rate x multiplier)."""
    return int(next(iter(scales.values())).rate * next(iter(scales.values())).multiplier) if scales else 1


def scale_issues(sets: list[SkuSet], scales: dict[str, SetScale]) -> list[tuple[int | None, str, str]]:
    """Where the coverage scales of an offer's sets (coverage_scales) leave the bounds of exact
    coverage (docs/semantics.md, "Stacked coverage"): (index of the set or None for the offer,
    what, the value), empty when within them."""
    if not scales:
        return []
    out: list[tuple[int | None, str, str]] = []
    index = {s.key: i for i, s in enumerate(sets)}
    for key, sc in scales.items():
        if sc.rate >= MAX_SET_CONVERSION_RATE:
            out.append((index[key], "common conversion rate", f"{_decimal_text(sc.rate)} (below {MAX_SET_CONVERSION_RATE})"))
        elif max(sc.weights.values()) * sc.multiplier >= MAX_WEIGHT_TIMES_MULTIPLIER:
            out.append((index[key], "coverage weight x offer multiplier",
                        f"{max(sc.weights.values()) * sc.multiplier} (below 10^18)"))
    if out:
        return out
    largest_rate = max(sc.rate for sc in scales.values())
    largest_weight = max(max(sc.weights.values()) for sc in scales.values())
    if largest_rate * largest_weight >= MAX_RATE_TIMES_WEIGHT:
        out.append((None, "largest common conversion rate x largest coverage weight",
                    f"{_decimal_text(largest_rate * largest_weight)} (below 10^7)"))
    denominator = offer_denominator(scales)
    if denominator >= MAX_OFFER_DENOMINATOR:
        out.append((None, "common coverage denominator of the sets", f"{denominator} (below 10^24)"))
    return out


def _decimal_text(value: Fraction) -> str:
    """A fraction with a finite decimal expansion (every set rate is one) as number_text."""
    return number_text(Decimal(value.numerator) / Decimal(value.denominator))


class Stacked(IncentiveObjectStrategy):
    key = "stacked"
    calculators = ("dollars_per_coverage_unit",)
    offer_model = StackedOffer
    incentive_model = StackedIncentive

    def check_incentive(self, ctx: OfferContext, incentive: StackedIncentive) -> None:
        at = ctx.inside("incentive")
        sets = {s.key: s for s in incentive.sku_sets}
        dupes(at, lambda i: f"sku_sets[{i}].key", [s.key for s in incentive.sku_sets], "SKU set")
        for s_i, s in enumerate(incentive.sku_sets):
            sp = at.inside(f"sku_sets[{s_i}]")
            check_period_and_type(sp, s.period_key, s.transaction_type)
            dupes(sp, lambda i: f"conversion.rates[{i}].sku_key", [r.sku_key for r in s.conversion.rates],
                  "conversion SKU")
            dupes(sp, lambda i: f"rates[{i}].sku_key", [r.sku_key for r in s.rates], "rate SKU")
            converted = {r.sku_key for r in s.conversion.rates}
            for r_i, r in enumerate(s.conversion.rates):
                if r.rate <= 0:
                    sp.add(f"conversion.rates[{r_i}].rate", "conversion rate must be positive", r.rate,
                           "a number > 0 (units of `from` per coverage unit)")
            for r_i, r in enumerate(s.rates):
                if r.sku_key not in converted:
                    sp.add(f"rates[{r_i}].sku_key", "SKU has a rate but no conversion rate", r.sku_key,
                           "one of the set's conversion SKUs: " + ", ".join(sorted(converted)))
        stack_keys = []
        for k_i, st in enumerate(incentive.stacks):
            kp = at.inside(f"stacks[{k_i}]")
            stack_keys.append(stack_key(st))
            dupes(kp, lambda i: f"sku_set_keys[{i}]", list(st.sku_set_keys), "stack SKU set")
            owner: dict[str, str] = {}
            for name in st.sku_set_keys:
                if name not in sets:
                    kp.add("sku_set_keys", "stack names a SKU set that is not defined", name,
                           "one of " + ", ".join(sorted(sets)))
                    continue
                for r in sets[name].conversion.rates:
                    if r.sku_key in owner and owner[r.sku_key] != name:
                        kp.add("sku_set_keys", f"SKU {r.sku_key!r} is in two sets of this stack",
                               f"{owner[r.sku_key]} and {name}", "each SKU in one set of a stack")
                    owner.setdefault(r.sku_key, name)
        dupes(at, lambda i: f"stacks[{i}].key", stack_keys, "stack")
        self._check_exact_bounds(at, incentive)

    def _check_exact_bounds(self, at: Scope, inc: StackedIncentive) -> None:
        """The bounds within which every engine computes the offer's coverage exactly; an offer
        beyond them is refused (docs/semantics.md, "Stacked coverage"). `at`: the incentive."""
        if len(inc.stacks) > MAX_STACKS:
            at.add("stacks", "too many stacks to sum their overlaps exactly", len(inc.stacks),
                   f"at most {MAX_STACKS} stacks")
        if any(r.rate <= 0 for s in inc.sku_sets for r in s.conversion.rates):
            return  # reported above
        sets = list(inc.sku_sets)
        scales = coverage_scales(sets)
        beyond = scale_issues(sets, scales)
        for s_i, what, got in beyond:
            rates = ", ".join(number_text(r.rate) for s in (sets if s_i is None else [sets[s_i]])
                              for r in s.conversion.rates)
            at.add(f"sku_sets[{s_i}].conversion.rates" if s_i is not None else "sku_sets",
                   "conversion rates without a common denominator within the bounds of exact coverage",
                   f"rates {rates}: {what} {got}",
                   "rates sharing factors (one rate per product, e.g. 0.00921875 for every pack size of it): "
                   "docs/semantics.md, Stacked coverage")
        if beyond:
            return
        largest_weight = max(max(sc.weights.values()) for sc in scales.values())
        for s_i, s in enumerate(inc.sku_sets):
            for r_i, r in enumerate(s.rates):
                conv = next((x for x in s.conversion.rates if x.sku_key == r.sku_key), None)
                if conv is None:
                    continue
                if r.rate >= MAX_PAY_RATE or r.rate * largest_weight ** 2 >= MAX_PAY_TIMES_WEIGHTS \
                        or (conv.rate > 0 and r.rate / conv.rate >= MAX_PAY_PER_UNIT):
                    at.add(f"sku_sets[{s_i}].rates[{r_i}].rate", "rate too large to pay coverage exactly", r.rate,
                           f"below {MAX_PAY_RATE} per coverage unit (and x the offer's largest coverage weight "
                           f"squared, {largest_weight ** 2}, below {MAX_PAY_TIMES_WEIGHTS}) and {MAX_PAY_PER_UNIT} "
                           f"per {conv.from_}")

    def emit(self, g: EmitContext, program: ProgramBase, offer: StackedOffer,
             periods: dict[str, TimePeriod]) -> tuple[Threshold, int | None]:
        calc = offer.calculator_key
        scales = coverage_scales(list(offer.incentive.sku_sets))  # within the bounds: validated
        for s in offer.incentive.sku_sets:
            start, end = g.period(periods, s.period_key)
            pay = {r.sku_key: r for r in s.rates}
            sc = scales[s.key]
            for conv in s.conversion.rates:
                r = pay.get(conv.sku_key)
                g.add_row("stacked_set_skus", (
                    program.key, offer.key, s.key, conv.sku_key, s.transaction_type, start.isoformat(),
                    end.isoformat(), conv.from_, number_text(conv.rate), number_text(r.rate) if r else "0",
                    (r.measure if r and r.measure else CALCULATORS[calc]),
                    str(sc.weights[conv.sku_key]), _decimal_text(sc.rate), str(sc.multiplier),
                ))
        for st in offer.incentive.stacks:
            key = stack_key(st)
            for name in st.sku_set_keys:
                g.add_row("stacked_stacks", (program.key, offer.key, key, name))
        return NO_THRESHOLD, None


STRATEGY = Stacked()
