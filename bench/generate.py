"""Deterministic benchmark data for the incentive engine, at any size.

    python bench/generate.py --transactions 1000000 --participants 10000 --programs 1000 --out DIR
    python bench/generate.py --programs 5000 --programs-only --out DIR
    python bench/generate.py --shape seasons --transactions 10M --out DIR

Two shapes: `dense` (the default, described here) and `seasons` (bench/seasons.py: a
warehouse that keeps two seasons, where most transactions earn nothing).

Writes DIR/programs.json and DIR/data/{transactions,products,properties,prices,waivers,
enrollments}.parquet (no enrollments file with --no-enrollments: every participant is then
evaluated against every program).

The dense shape (realistic for a retail crop-input market, and earning on almost every
transaction):

- about 20 manufacturers (``mfr07``), each owning 4-8 brands (``mfr07_brand3``) of one product
  category (herbicide, fungicide, insecticide, seed, seed treatment, granular) and 15-35 SKUs per
  brand (``mfr07_brand3_sku0123``): a few thousand SKUs in all, each with a uom, a pack size, an
  application rate per acre and a list price;
- P programs spread over the manufacturers by market share, each naming only its
  manufacturer's SKUs, with about 3 offers: mostly standard (percent_of_amount, some
  dollars_per_unit, a few fixed_amount), some stepped (aggregated amount / quantity / property
  thresholds), a few stacked (seed + treatment + in-furrow style SKU sets with conversion rates
  in the SKU's own uom); every qualification type appears, with thresholds calibrated on the
  expected volume of a typical participant so that some participants pass and others miss;
- participants (``ent000123``) of log-normal size, each carrying 10-35% of the SKUs of 2-4
  manufacturers and enrolled in ~30 programs of those manufacturers;
- transactions over the prior (2024-09..2025-08) and current (2025-09..2026-08) seasons with
  seasonal months, per participant x manufacturer growth, ~3% returns, quantities rounded to
  pack sizes, at most 2 decimals, mostly retailer_purchases_from_distribution with grower sales
  for seed-type SKUs.

The catalogue and programs come from ``random.Random(seed)``; the big tables are produced by
DuckDB SQL with hash-based pseudo-random columns (``random_column``), streamed straight to
Parquet: 10M transactions take well under a minute and little memory. The same arguments give
the same data.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

# Raised whenever the same arguments give other data: bench/run.py then regenerates its cache.
# 2: independent pseudo-random columns (random_column) and the seasons shape.
DATA_VERSION = 2

INCENTIVE_PERIOD = ("2025-09-01", "2026-08-31")
PRIOR_YEAR_PERIOD = ("2024-09-01", "2025-08-31")
PRIOR_THREE_YEAR_PERIOD = ("2022-09-01", "2025-08-31")
EARLY_ORDER_PERIOD = ("2025-09-01", "2025-11-30")

PURCHASE = "retailer_purchases_from_distribution"
SALE = "retailer_sales_to_growers"

N_MANUFACTURERS = 20
MEAN_ACRES = 10 + 390 / 3  # acres = 10 + 390 * u^2 per transaction
CARRY_FRACTION = (0.10, 0.35)  # share of a manufacturer's SKUs a participant carries
RETURN_RATE = 0.03

# Share of a season's transactions in each month, September first.
PURCHASE_MONTHS = [0.07, 0.08, 0.09, 0.05, 0.05, 0.08, 0.13, 0.16, 0.14, 0.09, 0.04, 0.02]
SALE_MONTHS = [0.0, 0.0, 0.01, 0.02, 0.05, 0.16, 0.30, 0.33, 0.11, 0.02, 0.0, 0.0]

# category -> uom, application rate per acre (uom/acre), list price per uom, pack sizes
# (0.01 = metered bulk), share of transactions that are sales to growers.
CATEGORIES: dict[str, dict] = {
    "herbicide": dict(uom="gal", per_acre=(0.10, 0.50), price=(18, 70), packs=[2.5, 2.5, 5, 0.01], grower=0.05),
    "fungicide": dict(uom="gal", per_acre=(0.05, 0.15), price=(80, 300), packs=[1, 2.5, 0.01], grower=0.05),
    "insecticide": dict(uom="gal", per_acre=(0.02, 0.10), price=(50, 400), packs=[1, 2.5, 0.01], grower=0.05),
    "seed": dict(uom="unit", per_acre=(0.40, 1.00), price=(55, 320), packs=[1], grower=0.45),
    "seed_treatment": dict(uom="gal", per_acre=(0.004, 0.012), price=(400, 650), packs=[1, 0.01], grower=0.45),
    "granular": dict(uom="lb", per_acre=(4.0, 10.0), price=(1.5, 12), packs=[40, 50], grower=0.25),
}
CATEGORY_WEIGHTS = {"herbicide": 5, "fungicide": 3, "insecticide": 3, "seed": 2, "seed_treatment": 2,
                     "granular": 1}

QUALIFICATION_WEIGHTS = {
    "aggregated_amount": 30, "aggregated_quantity": 10, "brand_count": 10,
    "share_of_wallet_percent": 10, "yoy_amount_index": 15, "yoy_quantity_index": 7,
    "amount_average_index": 8, "property": 10,
}


# --------------------------------------------------------------------------------------------
# Catalogue
# --------------------------------------------------------------------------------------------


@dataclass
class Sku:
    idx: int
    sku_key: str
    brand_key: str
    mfr: int
    category: str
    uom: str
    price: float
    pack: float
    per_acre: float
    grower: float

    @property
    def mean_quantity(self) -> float:
        return max(self.pack, MEAN_ACRES * self.per_acre)

    @property
    def mean_amount(self) -> float:
        return self.mean_quantity * self.price


@dataclass
class Manufacturer:
    idx: int
    name: str
    share: float  # market share weight
    brands: dict[str, list[Sku]] = field(default_factory=dict)
    brand_category: dict[str, str] = field(default_factory=dict)

    @property
    def skus(self) -> list[Sku]:
        return [s for skus in self.brands.values() for s in skus]


def make_catalogue(rng: random.Random) -> list[Manufacturer]:
    mfrs: list[Manufacturer] = []
    sku_no = 0
    cats = list(CATEGORY_WEIGHTS)
    for m in range(1, N_MANUFACTURERS + 1):
        mfr = Manufacturer(m, f"mfr{m:02d}", round(rng.lognormvariate(0, 0.6), 3))
        n_brands = rng.randint(4, 8)
        categories = rng.choices(cats, weights=[CATEGORY_WEIGHTS[c] for c in cats], k=n_brands)
        if rng.random() < 0.45:  # a seed house: seed + treatment brands, stackable
            categories[0], categories[1] = "seed", "seed_treatment"
        for b, cat in enumerate(categories, start=1):
            brand = f"{mfr.name}_brand{b}"
            spec = CATEGORIES[cat]
            mfr.brand_category[brand] = cat
            base_price = rng.uniform(*spec["price"])
            # the product's label rate: every pack size of a brand shares it (a set of one product
            # has one conversion rate)
            per_acre = round(rng.uniform(*spec["per_acre"]), 6)
            skus = []
            for _ in range(rng.randint(15, 35)):
                sku_no += 1
                pack = rng.choice(spec["packs"])
                price = round(base_price * rng.uniform(0.85, 1.2) * (0.92 if pack == 0.01 else 1.0), 2)
                skus.append(Sku(sku_no, f"{brand}_sku{sku_no:04d}", brand, m, cat, spec["uom"], price, pack,
                                per_acre, spec["grower"]))
            mfr.brands[brand] = skus
        mfrs.append(mfr)
    return mfrs


# --------------------------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------------------------


def nice(x: float, digits: int = 2) -> float:
    """Round to `digits` significant digits (thresholds like 45000, 1200, 3.5)."""
    if x <= 0:
        return 0.0
    scale = 10 ** (math.floor(math.log10(x)) - digits + 1)
    return float(round(x / scale) * scale) if scale >= 1 else round(round(x / scale) * scale, 6)


def period(key: str, label: str, bounds: tuple[str, str]) -> dict:
    return {"key": key, "label": label, "start_date": bounds[0], "end_date": bounds[1]}


class ProgramMaker:
    """Programs of the catalogue, thresholds calibrated on a typical participant's volume."""

    def __init__(self, rng: random.Random, mfrs: list[Manufacturer], transactions: int, participants: int):
        self.rng = rng
        self.mfrs = mfrs
        total_share = sum(m.share for m in mfrs)
        mean_mfrs = 3.0
        mean_f = sum(CARRY_FRACTION) / 2
        # Expected SKUs carried by a participant (2-4 manufacturers, chosen by share).
        mean_skus = sum(m.share / total_share * len(m.skus) for m in mfrs)
        carried = mean_mfrs * mean_f * mean_skus
        tx_per_participant = transactions / max(participants, 1)
        # Expected transactions on one SKU in one season by a participant carrying its maker.
        self.tx_per_sku_season = tx_per_participant * mean_f / carried / 2

    def expected(self, skus: list[Sku], what: str = "amount", transaction_type: str | None = PURCHASE) -> float:
        total = 0.0
        for s in skus:
            share = 1.0 if transaction_type is None else (s.grower if transaction_type == SALE else 1 - s.grower)
            unit = s.mean_amount if what == "amount" else s.mean_quantity
            total += self.tx_per_sku_season * share * unit * (1 - 2 * RETURN_RATE)
        return total

    def pick(self, pool: list[Sku], lo: int = 5, hi: int = 50) -> list[Sku]:
        n = min(len(pool), self.rng.randint(lo, hi))
        return sorted(self.rng.sample(pool, n), key=lambda s: s.idx)

    @staticmethod
    def keys(skus: list[Sku]) -> list[str]:
        return [s.sku_key for s in skus]

    def flt(self, skus: list[Sku], period_key: str = "incentive_period", tt: str | None = PURCHASE) -> dict:
        f = {"period_key": period_key, "sku_keys": self.keys(skus)}
        if tt:
            f["transaction_type"] = tt
        return f

    # ------------------------------------------------------------------ qualifications

    def qualification(self, qtype: str, key: str, pool: list[Sku], mfr: Manufacturer, periods: set[str]) -> dict:
        r = self.rng
        q: dict = {"type": qtype, "key": key, "label": key.replace("_", " ").title(),
                   "operator": "greater_than_or_equal_to"}
        if qtype in ("aggregated_amount", "aggregated_quantity"):
            skus = self.pick(pool)
            what = "amount" if qtype == "aggregated_amount" else "quantity"
            q["value"] = nice(self.expected(skus, what) * r.uniform(0.3, 1.6))
            q["filters"] = [self.flt(skus)]
            if r.random() < 0.15:  # a second entry: grower sales count too (union)
                q["filters"].append(self.flt(skus, tt=SALE))
        elif qtype == "brand_count":
            brands = r.sample(list(mfr.brands), min(len(mfr.brands), r.randint(2, 4)))
            skus = sorted((s for b in brands for s in mfr.brands[b]), key=lambda s: s.idx)
            skus = self.pick(skus, 5, 50)
            present = sorted({s.brand_key for s in skus})
            q["value"] = float(r.randint(2, max(2, min(3, len(present)))))
            q["filters"] = [self.flt(skus)]
            q["brand_keys"] = present if r.random() < 0.5 else []
            q["excluded_sku_keys"] = [skus[0].sku_key] if r.random() < 0.3 else []
        elif qtype == "share_of_wallet_percent":
            den = self.pick(mfr.skus, 10, 50)
            num = sorted(r.sample(den, max(1, len(den) // r.randint(2, 4))), key=lambda s: s.idx)
            share = 100 * self.expected(num) / max(self.expected(den), 1e-9)
            q["value"] = nice(max(1.0, share * r.uniform(0.6, 1.2)))
            q["numerator"] = {"filters": [self.flt(num)]}
            q["denominator"] = {"filters": [self.flt(den)]}
        elif qtype in ("yoy_amount_index", "yoy_quantity_index"):
            skus = self.pick(pool)
            q["value"] = float(r.choice([90, 95, 100, 100, 103, 105, 110]))
            q["numerator"] = {"filters": [self.flt(skus)]}
            q["denominator"] = {"filters": [self.flt(skus, "prior_year_period")]}
        elif qtype == "amount_average_index":
            skus = self.pick(pool)
            if r.random() < 0.5:
                periods.add("prior_three_year_period")
                q["value"] = float(r.choice([250, 280, 300, 320]))  # data holds one prior season
                q["denominator"] = {"filters": [self.flt(skus, "prior_three_year_period")], "divisor": 3.0}
            else:
                q["value"] = float(r.choice([90, 95, 100, 105]))
                q["denominator"] = {"filters": [self.flt(skus, "prior_year_period")], "divisor": 1.0}
            q["numerator"] = {"filters": [self.flt(skus)]}
        elif qtype == "property":
            if r.random() < 0.7:
                q["value"] = float(r.choice([75, 80, 85, 90, 100]))
                q["property"] = {"key": "business_plan_achieved_percent", "type": "number", "level": "request"}
            else:
                q["operator"] = "equal_to"
                q["value"] = True
                q["property"] = {"key": "is_sustainability_certified", "type": "boolean", "level": "entity"}
        else:  # pragma: no cover
            raise ValueError(qtype)
        if qtype != "property" and r.random() < 0.05:
            q["operator"] = "greater_than"
        q["attributes"] = []
        return q

    def qualification_type(self) -> str:
        types = list(QUALIFICATION_WEIGHTS)
        return self.rng.choices(types, weights=[QUALIFICATION_WEIGHTS[t] for t in types])[0]

    # ------------------------------------------------------------------ offers

    def standard(self, offer: dict, pool: list[Sku]) -> None:
        r = self.rng
        calc = r.choices(["percent_of_amount", "dollars_per_unit", "fixed_amount"], weights=[70, 22, 8])[0]
        skus = self.pick(pool, 5, 12) if calc == "fixed_amount" else self.pick(pool)
        base = r.choice([1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0])

        def rates(items: list[Sku], boost: float = 1.0) -> list[dict]:
            out = []
            for s in items:
                if calc == "percent_of_amount":
                    rate, measure = base * boost + (0.5 if r.random() < 0.1 else 0.0), "percent"
                elif calc == "dollars_per_unit":
                    rate, measure = round(max(0.05, s.price * base / 100 * boost), 2), "dollars"
                else:
                    rate, measure = float(r.choice([250, 500, 750, 1000, 1500, 2000])), "dollars"
                out.append({"sku_key": s.sku_key, "rate": rate, "measure": measure})
            return out

        incentives = [{"key": f"incentive_period_{PURCHASE}", "label": "Full Season Incentive",
                       "period_key": "incentive_period", "transaction_type": PURCHASE, "rates": rates(skus)}]
        if r.random() < 0.25 and calc != "fixed_amount":
            early = sorted(r.sample(skus, max(1, len(skus) // 2)), key=lambda s: s.idx)
            offer["time_periods"] = [period("early_order_period", "Early Order", EARLY_ORDER_PERIOD)]
            inc = {"label": "Early Order Incentive", "period_key": "early_order_period",
                   "transaction_type": PURCHASE, "rates": rates(early, 0.5)}
            if r.random() < 0.5:
                inc["key"] = "early_order"
            incentives.append(inc)
        offer.update(calculator_key=calc, strategy_key="standard", sku_keys=self.keys(skus),
                     transaction_types=[PURCHASE], incentives=incentives)

    def stepped(self, offer: dict, pool: list[Sku]) -> None:
        r = self.rng
        calc = r.choices(["percent_of_amount", "dollars_per_unit", "fixed_amount"], weights=[70, 25, 5])[0]
        earning = self.pick(pool)
        ttype = r.choices(["aggregated_amount", "aggregated_quantity", "property"], weights=[60, 25, 15])[0]
        n_tiers = r.randint(2, 4)
        multipliers = sorted(r.sample([0.3, 0.6, 1.0, 1.5, 2.5, 4.0], n_tiers))
        if ttype == "property":
            td = {"type": "property", "property": {"key": "business_plan_achieved_percent", "type": "number",
                                                   "level": "request"}}
            thresholds = sorted(r.sample([70.0, 75.0, 80.0, 85.0, 90.0, 95.0, 100.0, 110.0], n_tiers))
        else:
            basis = self.pick(pool) if r.random() < 0.4 else earning
            what = "amount" if ttype == "aggregated_amount" else "quantity"
            exp = max(self.expected(basis, what), 1.0)
            thresholds = sorted({nice(exp * m) for m in multipliers})
            td = {"type": ttype, "filters": [self.flt(basis)]}
        first = r.choice([1.0, 1.5, 2.0, 2.5, 3.0])
        step = r.choice([0.5, 1.0, 1.5])
        tiers = []
        for i, th in enumerate(thresholds):
            if calc == "percent_of_amount":
                value, measure = first + i * step, "percent"
            elif calc == "dollars_per_unit":
                value, measure = round(0.25 + i * 0.25 * step * 2, 2), "dollars"
            else:
                value, measure = float(500 * (i + 1) * r.choice([1, 2, 4])), "dollars"
            tier = {"threshold": th, ("value" if r.random() < 0.8 else "rate"): value, "measure": measure}
            if r.random() < 0.6:
                tier["key"] = f"tier_{i + 1}"
            tiers.append(tier)
        r.shuffle(tiers)  # tiers are taken by threshold, whatever the listed order
        offer.update(calculator_key=calc, strategy_key="stepped", sku_keys=self.keys(earning),
                     transaction_types=[PURCHASE],
                     incentive={"filters": [self.flt(earning)], "threshold_definition": td, "rates": tiers})

    def stacked(self, offer: dict, mfr: Manufacturer) -> bool:
        r = self.rng
        brands = list(mfr.brands)
        if len(brands) < 2:
            return False
        seed = [b for b in brands if mfr.brand_category[b] == "seed"]
        treat = [b for b in brands if mfr.brand_category[b] == "seed_treatment"]
        if seed and treat:
            chosen = [seed[0], treat[0]]
            rest = [b for b in brands if b not in chosen and mfr.brand_category[b] in ("insecticide", "granular")]
            if rest and r.random() < 0.4:
                chosen.append(rest[0])
        else:
            chosen = r.sample(brands, r.choice([2, 2, 3]) if len(brands) >= 3 else 2)
        tt = SALE if r.random() < 0.8 else PURCHASE
        sets = []
        paid: list[str] = []
        for i, brand in enumerate(chosen):
            skus = sorted(r.sample(mfr.brands[brand], min(len(mfr.brands[brand]), r.randint(1, 6))),
                          key=lambda s: s.idx)
            conv = [{"sku_key": s.sku_key, "rate": s.per_acre, "from": s.uom} for s in skus]
            anchor = i == 0 and r.random() < 0.7
            if anchor:  # the anchor set (e.g. seed) only measures coverage
                rates = [{"sku_key": s.sku_key, "rate": 0.0, "measure": "dollars"} for s in skus] \
                    if r.random() < 0.5 else []
            else:
                rate = r.choice([0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0])
                rates = [{"sku_key": s.sku_key, "rate": rate, "measure": "dollars"} for s in skus]
                paid += [s.sku_key for s in skus]
            key = mfr.brand_category[brand] + (f"_{i}" if mfr.brand_category[brand] in
                                               [mfr.brand_category[b] for b in chosen[:i]] else "")
            sets.append({"key": key, "period_key": "incentive_period", "transaction_type": tt,
                         "conversion": {"coverage_unit": "acre", "rates": conv}, "rates": rates})
        stacks = [{"key": "_".join(s["key"] for s in sets) + "_stack", "sku_set_keys": [s["key"] for s in sets]}]
        if len(sets) == 3 and r.random() < 0.5:
            stacks.append({"sku_set_keys": [sets[0]["key"], sets[1]["key"]]})  # default key: joined with _and_
        if r.random() < 0.5:
            stacks[0].pop("key")
        offer.update(calculator_key="dollars_per_coverage_unit", strategy_key="stacked",
                     sku_keys=sorted(set(paid)), transaction_types=[tt],
                     incentive={"sku_sets": sets, "stacks": stacks})
        return True

    # ------------------------------------------------------------------ programs

    def program(self, n: int, mfr: Manufacturer) -> dict:
        r = self.rng
        brands = r.sample(list(mfr.brands), min(len(mfr.brands), r.randint(1, 4)))
        theme = "_".join(sorted({mfr.brand_category[b] for b in brands}))[:40]
        pool = sorted((s for b in brands for s in mfr.brands[b]), key=lambda s: s.idx)
        key = f"{mfr.name}.2026.retailer.{theme}.p{n:05d}"
        periods: set[str] = {"incentive_period", "prior_year_period"}
        quals = []
        n_q = r.choices([0, 1, 2, 3], weights=[15, 35, 30, 20])[0]
        used: set[str] = set()
        for _ in range(n_q):
            qtype = self.qualification_type()
            qkey = qtype if qtype not in used else f"{qtype}_{len(quals) + 1}"
            used.add(qkey)
            quals.append(self.qualification(qtype, qkey, pool, mfr, periods))
        ks = [q["key"] for q in quals]
        if not ks or r.random() < 0.05:
            qualifier = None
        elif len(ks) == 1:
            qualifier = ks[0]
        elif len(ks) == 2:
            qualifier = f"{ks[0]} {r.choice(['AND', 'OR', 'and'])} {ks[1]}"
        else:
            qualifier = f"{ks[0]} AND ({ks[1]} OR {ks[2]})"
        offers = []
        n_offers = r.choices([2, 3, 4], weights=[30, 45, 25])[0]
        names = ["base", "growth", "volume", "loyalty", "bonus", "accelerator"]
        for o in range(n_offers):
            offer: dict = {"key": f"{key}.{names[o]}", "label": names[o].title() + " Rebate",
                           "attributes": [{"type": "tier", "value": names[o], "label": names[o].title()}],
                           "time_periods": []}
            strategy = r.choices(["standard", "stepped", "stacked"], weights=[75, 18, 7])[0]
            if strategy == "stacked" and self.stacked(offer, mfr):
                pass
            elif strategy == "stepped":
                self.stepped(offer, pool)
            else:
                self.standard(offer, pool)
            oq = []
            if r.random() < 0.2:
                qtype = r.choice(["aggregated_amount", "aggregated_quantity", "brand_count", "property"])
                offer_periods = periods | {p["key"] for p in offer["time_periods"]}
                oq.append(self.qualification(qtype, f"offer_{qtype}", pool, mfr, offer_periods))
            offer["qualifications"] = oq
            offer["qualifier"] = oq[0]["key"] if oq else None
            offers.append(offer)
        tps = [period("incentive_period", "2026 Season", INCENTIVE_PERIOD),
               period("prior_year_period", "2025 Season", PRIOR_YEAR_PERIOD)]
        if "prior_three_year_period" in periods:
            tps.append(period("prior_three_year_period", "2023-2025 Seasons", PRIOR_THREE_YEAR_PERIOD))
        return {"key": key, "label": f"{mfr.name.upper()} {theme.replace('_', ' ').title()} Program {n}",
                "attributes": [{"type": "manufacturer", "value": mfr.name, "label": mfr.name.upper()}],
                "time_periods": tps, "qualifications": quals, "qualifier": qualifier, "offers": offers}


def make_programs(rng: random.Random, mfrs: list[Manufacturer], n_programs: int, transactions: int,
                  participants: int) -> list[dict]:
    maker = ProgramMaker(rng, mfrs, transactions, participants)
    owners = [mfrs[i % len(mfrs)] for i in range(min(n_programs, len(mfrs)))]
    owners += rng.choices(mfrs, weights=[m.share for m in mfrs], k=n_programs - len(owners))
    return [maker.program(n, mfr) for n, mfr in enumerate(owners, start=1)]


# --------------------------------------------------------------------------------------------
# Participants and the big tables (DuckDB SQL)
# --------------------------------------------------------------------------------------------


def write_csv(path: Path, header: list[str], rows: list[tuple]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def random_column(key: str, seed: int, salt: int) -> str:
    """SQL of a pseudo-random UBIGINT of `key` (SQL expressions), `seed` and `salt`, independent
    from one salt to the next. DuckDB's hash(a, b, salt) is not: it combines the arguments'
    hashes by multiply-and-xor, so two salts give two values that differ only by the bits of
    the salts' own hashes (hash(i, s, 3) and hash(i, s, 4) over [0, 1): correlation 0.998). The
    salt is xored into the combined hash, which is then hashed again (a full mix)."""
    return f"hash(xor(hash({key}, {seed}), {salt}::ubigint))"


def month_case(u: str, weights: list[float]) -> str:
    """SQL CASE mapping a uniform `u` in [0,1) to a month offset 0..11 by weight."""
    total = sum(weights)
    cum, parts = 0.0, []
    for m, w in enumerate(weights[:-1]):
        cum += w / total
        if w > 0:
            parts.append(f"WHEN {u} < {cum:.6f} THEN {m}")
    return "CASE " + " ".join(parts) + " ELSE 11 END"


def generate_data(con, tmp: Path, data: Path, rng: random.Random, mfrs: list[Manufacturer],
                  programs: list[dict], n_tx: int, n_ent: int, enrollments: bool, seed: int) -> dict[str, int]:
    skus = [s for m in mfrs for s in m.skus]
    write_csv(tmp / "skus.csv", ["sku_idx", "sku_key", "brand_key", "mfr", "uom", "price", "pack", "per_acre",
                                 "grower"],
              [(s.idx, s.sku_key, s.brand_key, s.mfr, s.uom, s.price, s.pack, s.per_acre, s.grower) for s in skus])
    # Participants: log-normal size, 2-4 manufacturers by share, carry fraction and growth each.
    ents, ent_mfr = [], []
    for e in range(1, n_ent + 1):
        weight = rng.lognormvariate(0, 0.9)
        plan = round(min(140.0, max(40.0, rng.gauss(90, 15))), 1)
        certified = "true" if rng.random() < 0.4 else "false"
        ents.append((e, weight, plan, certified))
        chosen: set[int] = set()
        k = rng.choices([2, 3, 4], weights=[35, 40, 25])[0]
        while len(chosen) < k:
            chosen.add(rng.choices(mfrs, weights=[m.share for m in mfrs])[0].idx)
        for m in sorted(chosen):
            ent_mfr.append((e, m, round(rng.uniform(*CARRY_FRACTION), 3), round(rng.uniform(0.75, 1.35), 3)))
    write_csv(tmp / "ents.csv", ["e", "weight", "plan", "certified"], ents)
    write_csv(tmp / "ent_mfr.csv", ["e", "m", "f", "g"], ent_mfr)
    write_csv(tmp / "programs.csv", ["p", "m", "program_key"],
              [(i, int(p["key"][3:5]), p["key"]) for i, p in enumerate(programs)])

    def q(sql: str) -> None:
        con.execute(sql)

    q(f"create table skus as select * from read_csv('{tmp}/skus.csv', header=true)")
    q(f"create table ents as select * from read_csv('{tmp}/ents.csv', header=true)")
    q(f"create table ent_mfr as select * from read_csv('{tmp}/ent_mfr.csv', header=true)")
    q(f"create table programs as select * from read_csv('{tmp}/programs.csv', header=true)")
    U = "/ 18446744073709551616.0"  # hash -> [0, 1)
    # Carried SKUs: each SKU of a chosen manufacturer with probability f (at least one per maker),
    # numbered 0..n-1 per participant in hash order (the low numbers are the best sellers).
    q(f"""
        create table carry as
        with c as (
            select em.e, em.g, s.sku_idx, hash(em.e, s.sku_idx, {seed}, 11) as h, em.f, s.mfr
            from ent_mfr em join skus s on s.mfr = em.m
            qualify h {U} < f or row_number() over (partition by em.e, s.mfr order by h) = 1
        )
        select e, g, sku_idx, (row_number() over (partition by e order by h) - 1)::bigint as k,
               count(*) over (partition by e) as n_carry
        from c
    """)
    # Participant picked per transaction: slots proportional to size, hashed into.
    n_slots = max(64 * n_ent, 1)
    q(f"""
        create table slots as
        with w as (
            select e, greatest(1, round(weight / sum(weight) over () * {n_slots}))::bigint as n from ents
        ), c as (select e, n, (sum(n) over (order by e) - n)::bigint as lo from w)
        select unnest(range(lo, lo + n)) as slot, c.e, nc.n_carry
        from c join (select distinct e, n_carry from carry) nc using (e)
    """)
    total_slots = con.execute("select count(*) from slots").fetchone()[0]

    def rnd(salt: int) -> str:  # the transaction's pseudo-random columns, independent of each other
        return random_column("i", seed, salt)

    purchase_month = month_case("u_month", PURCHASE_MONTHS)
    sale_month = month_case("u_month", SALE_MONTHS)
    q(f"""
        copy (
            with t as (
                select i,
                       ({rnd(1)} % {total_slots})::bigint as slot,
                       {rnd(2)} as h_sku,
                       {rnd(3)} {U} as u_season,
                       {rnd(4)} {U} as u_return,
                       {rnd(5)} {U} as u_type,
                       {rnd(6)} {U} as u_month,
                       {rnd(7)} as h_day,
                       {rnd(8)} {U} as u_acres,
                       {rnd(9)} {U} as u_price
                from range({n_tx}) r(i)
            ), picked as (
                select t.*, sl.e, c.sku_idx, c.g
                from t
                join slots sl on sl.slot = t.slot
                join carry c on c.e = sl.e and c.k = (
                    -- skewed pick: popular SKUs sell more often
                    floor(sl.n_carry * pow((t.h_sku % 1000003) / 1000003.0, 1.6))::bigint)
            ), {transaction_rows_sql(sale_month, purchase_month, RETURN_RATE)}
        ) to '{data}/transactions.parquet' (format parquet, compression zstd)
    """)
    q(f"""copy (select sku_key, brand_key from skus order by sku_key)
          to '{data}/products.parquet' (format parquet)""")
    # Properties: a request-level business plan value per participant (and a default row), an
    # entity-level certification flag.
    q(f"""
        copy (
            select 'request' as level, 'ent' || lpad(e::varchar, 6, '0') as entity_id,
                   null::varchar as transaction_id, 'business_plan_achieved_percent' as key,
                   plan::varchar as value
            from ents
            union all
            select 'request', null, null, 'business_plan_achieved_percent', '80'
            union all
            select 'entity', 'ent' || lpad(e::varchar, 6, '0'), null, 'is_sustainability_certified', certified
            from ents
            order by level, entity_id nulls first, key
        ) to '{data}/properties.parquet' (format parquet)
    """)
    # Prices: program prices for a few hundred SKUs; some with a mid-season increase that
    # overlaps the season price (the later start wins) and open-ended dates.
    priced = sorted(rng.sample(skus, min(len(skus), 300)), key=lambda s: s.idx)
    rows = []
    for s in priced:
        p = round(s.price * rng.uniform(0.85, 0.95), 2)
        kind = rng.random()
        if kind < 0.6:
            rows.append((s.sku_key, p, "2025-09-01", "2026-08-31"))
        elif kind < 0.8:
            rows.append((s.sku_key, p, "2025-09-01", "2026-08-31"))
            rows.append((s.sku_key, round(p * 1.04, 2), "2026-03-01", ""))
        else:
            rows.append((s.sku_key, p, "", ""))
    write_csv(tmp / "prices.csv", ["sku_key", "price", "start_date", "end_date"], rows)
    q(f"""copy (select sku_key, price::decimal(18, 2) as price, nullif(start_date, '')::date as start_date,
                       nullif(end_date, '')::date as end_date
                from read_csv('{tmp}/prices.csv', header=true, all_varchar=true) order by all)
          to '{data}/prices.parquet' (format parquet)""")
    # Waivers: a program-level qualification waived for a few participants, and one for everyone.
    waivers = []
    with_quals = [p for p in programs if p["qualifications"]]
    for _ in range(min(len(with_quals), max(1, n_ent // 50))):
        p = rng.choice(with_quals)
        waivers.append((p["key"], rng.choice(p["qualifications"])["key"], "", f"ent{rng.randint(1, n_ent):06d}"))
    if with_quals:
        p = rng.choice(with_quals)
        waivers.append((p["key"], p["qualifications"][0]["key"], "", ""))
    write_csv(tmp / "waivers.csv", ["program_key", "qualification_key", "offer_key", "entity_id"], waivers)
    q(f"""copy (select distinct * from read_csv('{tmp}/waivers.csv', header=true, all_varchar=true) order by all)
          to '{data}/waivers.parquet' (format parquet)""")
    enrollment_path = data / "enrollments.parquet"
    if enrollments:
        # ~30 programs (25-35) of the participant's own manufacturers, picked by hash.
        q(f"""
            copy (
                select 'ent' || lpad(em.e::varchar, 6, '0') as entity_id, p.program_key
                from ent_mfr em join programs p on p.m = em.m
                qualify row_number() over (partition by em.e order by hash(em.e, p.p, {seed}, 21))
                        <= 25 + hash(em.e, {seed}, 22) % 11
                order by entity_id, program_key
            ) to '{enrollment_path}' (format parquet)
        """)
    elif enrollment_path.exists():
        enrollment_path.unlink()
    counts = {}
    for name in ("transactions", "products", "properties", "prices", "waivers", "enrollments"):
        path = data / f"{name}.parquet"
        if path.exists():
            counts[name] = con.execute(f"select count(*) from read_parquet('{path}')").fetchone()[0]
    return counts


def parse_count(text: str) -> int:
    """1000, 100k, 1M, 2.5M -> int."""
    t = text.strip().lower().replace("_", "").replace(",", "")
    mult = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}.get(t[-1:], 1)
    return int(float(t[:-1] if mult > 1 else t) * mult)


SHAPES = ("dense", "seasons")


def shape_module(shape: str):
    """The module that makes a shape's catalogue, programs and data (make_catalogue,
    make_programs, generate_data)."""
    if shape == "seasons":
        if str(Path(__file__).resolve().parent) not in sys.path:
            sys.path.insert(0, str(Path(__file__).resolve().parent))
        import seasons  # bench/seasons.py, beside this file

        return seasons
    return sys.modules[__name__]


def default_participants(shape: str, transactions: int) -> int:
    if shape == "seasons":
        return shape_module(shape).default_participants(transactions)
    return 10_000



def transaction_rows_sql(sale_month: str, purchase_month: str, return_rate: float) -> str:
    """The end of both shapes' transactions query: from the CTE `picked` (one row per transaction
    with its participant `e`, `sku_idx`, growth `g` and uniform columns u_*) and the table `skus`,
    the CTEs typed and dated and the final select of the transactions' columns, ordered by `i`."""
    return f"""typed as (
                select p.*, s.sku_key, s.uom, s.price, s.pack, s.per_acre,
                       case when u_type < s.grower then '{SALE}' else '{PURCHASE}' end as transaction_type,
                       case when u_season < p.g / (1 + p.g) then date '2025-09-01' else date '2024-09-01' end
                           as season_start,
                       case when u_return < {return_rate} then -1 else 1 end as sign
                from picked p join skus s using (sku_idx)
            ), dated as (
                select *,
                       (season_start + to_months(
                           case when transaction_type = '{SALE}' then {sale_month} else {purchase_month} end
                       ))::date as month_start,
                       greatest(pack, round((10 + 390 * u_acres * u_acres) * per_acre / pack) * pack) as qty
                from typed
            )
            select
                'tx' || lpad(i::varchar, 10, '0') as transaction_id,
                'ent' || lpad(e::varchar, 6, '0') as entity_id,
                transaction_type,
                (month_start + (h_day % day(last_day(month_start)))::integer)::date as transaction_date,
                sku_key,
                (sign * round(qty, 2))::decimal(18, 2) as quantity,
                uom as uom_key,
                (sign * round(round(qty, 2) * price * (0.96 + 0.08 * u_price)
                              * case when transaction_type = '{SALE}' then 1.12 else 1 end, 2))::decimal(18, 2)
                    as amount
            from dated
            order by i  -- a deterministic file; row order unrelated to participant, SKU and date"""

def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", choices=SHAPES, default="dense",
                    help="dense (default): every transaction near an offer; seasons: bench/seasons.py")
    ap.add_argument("--transactions", type=parse_count, default=1_000_000)
    ap.add_argument("--participants", type=parse_count, default=None,
                    help="default: 10,000 (dense); one per 1,000 transactions (seasons)")
    ap.add_argument("--programs", type=parse_count, default=1_000)
    ap.add_argument("--no-enrollments", action="store_true", help="write no enrollments file")
    ap.add_argument("--programs-only", action="store_true", help="write programs.json only")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all)")
    ap.add_argument("--memory-limit", default="1GB", help="DuckDB memory limit while generating (default 1GB)")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)

    started = time.perf_counter()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    shape = shape_module(args.shape)
    if args.participants is None:
        args.participants = default_participants(args.shape, args.transactions)
    mfrs = shape.make_catalogue(rng)
    programs = shape.make_programs(rng, mfrs, args.programs, args.transactions, args.participants)
    with (out / "programs.json").open("w", encoding="utf-8", newline="\n") as f:
        json.dump({"programs": programs}, f, separators=(",", ":"))
        f.write("\n")
    n_offers = sum(len(p["offers"]) for p in programs)
    print(f"programs.json ({args.shape}): {len(programs):,} programs, {n_offers:,} offers, "
          f"{sum(len(m.skus) for m in mfrs):,} SKUs of {len(mfrs)} manufacturers", flush=True)
    if hasattr(shape, "describe"):
        print("  " + shape.describe(programs), flush=True)
    if args.programs_only:
        return 0

    import duckdb

    data = out / "data"
    data.mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="bench_gen_", dir=out))
    try:
        con = duckdb.connect(str(tmp / "gen.duckdb"))
        con.execute(f"set temp_directory = '{tmp}/spill'")
        con.execute(f"set memory_limit = '{args.memory_limit}'")  # the sort spills beyond it
        if args.threads:
            con.execute(f"set threads = {args.threads}")
        counts = shape.generate_data(con, tmp, data, random.Random(args.seed + 1), mfrs, programs,
                                     args.transactions, args.participants, not args.no_enrollments, args.seed)
        con.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("data: " + ", ".join(f"{k} {v:,}" for k, v in counts.items()), flush=True)
    print(f"generated in {time.perf_counter() - started:.1f}s into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
