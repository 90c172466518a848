"""The `seasons` shape of bench/generate.py: a warehouse that keeps two seasons, where most
transactions earn nothing.

    python bench/generate.py --shape seasons --transactions 10M --out DIR

The `dense` shape (the default) writes about one earning row per transaction: its participants buy only
SKUs of the manufacturers whose programs they are enrolled in, and few qualifications stop them
(at 10M, 9.9M earning rows; bench/results.md). A warehouse keeps more than that. Here:

- 20 manufacturers (``mfr07``) x 50 brands (``mfr07_brand23``) x 2 pack sizes: 100 SKUs each,
  2,000 in all; both pack sizes of a brand share its application rate (one conversion rate per
  product in a stacked set), given to 3 significant digits;
- 1,000 programs, 50 per manufacturer, each naming only its manufacturer's SKUs (a pool of 4-12
  of its brands), 2,625 offers: 1,851 standard, 526 stepped, 248 stacked (exact quotas, scaled
  with --programs); 60% of the programs are gated by an aggregated_amount qualification, 30% by
  a yoy_amount_index (current season against the prior one), 20% by a brand_count, drawn
  independently (a program may have several, all required: the qualifier ANDs them); the
  targets are set around a typical enrolled participant's volume so that a good part of the
  participants miss them (at 10M about 57% of the enrolled participant x offer pairs qualify);
- participants (``ent000123``, 10,000 at 10M transactions: one per 1,000 transactions unless
  --participants says otherwise) of log-normal size, each enrolled in 30 programs, 10 of each
  of its 3 manufacturers (~787k participant x offer pairs at 10M), and carrying 20-50% of those
  manufacturers' SKUs;
- transactions over two seasons, 2024-09-01 to 2026-08-31, about half in the prior season
  (which only the yoy qualifications read); 35% are the participant's purchases of its own
  manufacturers' SKUs (its current-season share set by a growth factor per manufacturer), the
  other 65% any of the 2,000 SKUs (the warehouse records every purchase, not only those of the
  programs a participant is enrolled in); 2 transaction types (sales to growers for ~21%, more
  for seed-type SKUs), 4% returns, quantities rounded to pack sizes, typed Parquet as the
  dense shape's. So most transactions earn nothing: about 17.5 earning rows per 100
  transactions (~1.75M at 10M), on under 10% of the transactions.

Also written: products, program prices of a tenth of the SKUs, enrollments; no properties or
waivers (no qualification reads them).

Measured at 300k transactions (300 participants): 57-58% of the enrolled participant x offer
pairs qualified (aggregated_amount met by ~50%, yoy_amount_index ~54%, brand_count ~62%), 17.3-17.5
earning rows per 100 transactions, for two seeds. The same arguments give the same data.
Imported from bench/ (it reads its helpers from generate.py).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from generate import (INCENTIVE_PERIOD, PRIOR_YEAR_PERIOD, PURCHASE, PURCHASE_MONTHS, SALE, SALE_MONTHS,
                      Manufacturer, Sku, month_case, nice, period, random_column, transaction_rows_sql,
                      write_csv)

N_MANUFACTURERS = 20
BRANDS_PER_MANUFACTURER = 50
TRANSACTIONS_PER_PARTICIPANT = 1_000  # the default number of participants: transactions / this
PROGRAMS_PER_MANUFACTURER_ENROLLED = 10  # x 3 manufacturers = 30 programs per participant
MANUFACTURERS_PER_PARTICIPANT = 3
OWN_SHARE = 0.35  # transactions on the participant's own manufacturers' carried SKUs
CARRY_FRACTION = (0.20, 0.50)
GROWTH = (0.75, 1.35)  # current / prior season volume, per participant x manufacturer
RETURN_RATE = 0.04
MEAN_ACRES = 10 + 390 / 3

# Offers per program and strategies per offer, as exact quotas (1,000 programs: 500 x 2, 375 x 3,
# 125 x 4 = 2,625 offers, of which 1,851 standard, 526 stepped, 248 stacked).
OFFERS_PER_PROGRAM = {2: 0.5, 3: 0.375, 4: 0.125}
STRATEGY_SHARE = {"stepped": 526 / 2625, "stacked": 248 / 2625}
QUALIFICATION_SHARE = {"aggregated_amount": 0.6, "yoy_amount_index": 0.3, "brand_count": 0.2}

# category -> uom, application rate per acre, list price per uom, the two pack sizes, share of
# a SKU's transactions that are sales to growers.
CATEGORIES: dict[str, dict] = {
    "herbicide": dict(uom="gal", per_acre=(0.10, 0.50), price=(18, 70), packs=(2.5, 30), grower=0.10),
    "fungicide": dict(uom="gal", per_acre=(0.05, 0.15), price=(80, 300), packs=(1, 2.5), grower=0.10),
    "insecticide": dict(uom="gal", per_acre=(0.02, 0.10), price=(50, 400), packs=(1, 2.5), grower=0.10),
    "seed": dict(uom="unit", per_acre=(0.40, 1.00), price=(55, 320), packs=(1, 40), grower=0.45),
    "seed_treatment": dict(uom="gal", per_acre=(0.004, 0.012), price=(400, 650), packs=(1, 2.5), grower=0.45),
    "granular": dict(uom="lb", per_acre=(4.0, 10.0), price=(1.5, 12), packs=(40, 50), grower=0.25),
}
CATEGORY_WEIGHTS = {"herbicide": 14, "fungicide": 9, "insecticide": 9, "seed": 8, "seed_treatment": 6,
                    "granular": 4}


def default_participants(transactions: int) -> int:
    """Participants for a size: one per 1,000 transactions (10,000 at 10M), at least 50, so
    that every size has the same volume per participant and the same share of qualified pairs."""
    return max(50, round(transactions / TRANSACTIONS_PER_PARTICIPANT))


# --------------------------------------------------------------------------------------------
# Catalogue
# --------------------------------------------------------------------------------------------


def make_catalogue(rng: random.Random) -> list[Manufacturer]:
    mfrs: list[Manufacturer] = []
    cats = list(CATEGORY_WEIGHTS)
    sku_no = 0
    for m in range(1, N_MANUFACTURERS + 1):
        mfr = Manufacturer(m, f"mfr{m:02d}", round(rng.lognormvariate(0, 0.5), 3))
        categories = ["seed", "seed_treatment"] + rng.choices(
            cats, weights=[CATEGORY_WEIGHTS[c] for c in cats], k=BRANDS_PER_MANUFACTURER - 2)
        for b, cat in enumerate(categories, start=1):
            brand = f"{mfr.name}_brand{b:02d}"
            spec = CATEGORIES[cat]
            mfr.brand_category[brand] = cat
            base_price = rng.uniform(*spec["price"])
            # the product's label rate, shared by its pack sizes, to 3 significant digits (the
            # exact coverage of a stacked offer stays far within its bounds)
            per_acre = nice(rng.uniform(*spec["per_acre"]), 3)
            skus = []
            for pack in spec["packs"]:
                sku_no += 1
                bulk = pack == max(spec["packs"])
                price = round(base_price * rng.uniform(0.92, 1.08) * (0.95 if bulk else 1.0), 2)
                skus.append(Sku(sku_no, f"{brand}_sku{sku_no:04d}", brand, m, cat, spec["uom"], price, pack,
                                per_acre, spec["grower"]))
            mfr.brands[brand] = skus
        mfrs.append(mfr)
    return mfrs


# --------------------------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------------------------


def quotas(total: int, shares: dict, rest) -> list:
    """`total` values: round(total x share) of each key of `shares`, `rest` for the remainder."""
    out = []
    for key, share in shares.items():
        out += [key] * round(total * share)
    return (out + [rest] * max(0, total - len(out)))[:total]


class SeasonsProgramMaker:
    """Programs of the catalogue; targets and tiers set on an enrolled participant's expected
    volume in one season."""

    def __init__(self, rng: random.Random, mfrs: list[Manufacturer], transactions: int, participants: int):
        self.rng = rng
        self.mfrs = mfrs
        n_skus = sum(len(m.skus) for m in mfrs)
        per_season = transactions / max(participants, 1) / 2
        # Expected transactions on one SKU of one of its manufacturers in one season, for an
        # enrolled participant: its own purchases (spread over the carried SKUs: carrying a
        # fraction f of 100 SKUs, each carried one gets 1 / (100 f) of them, so on average
        # 1 / 100 of them per SKU) and its share of the rest.
        per_mfr = len(mfrs[0].skus)
        self.tx_per_sku_season = per_season * (OWN_SHARE / MANUFACTURERS_PER_PARTICIPANT / per_mfr
                                                + (1 - OWN_SHARE) / n_skus)

    def expected(self, skus: list[Sku], transaction_type: str = PURCHASE) -> float:
        """Expected net amount of an enrolled participant on `skus` in one season."""
        total = 0.0
        for s in skus:
            share = s.grower if transaction_type == SALE else 1 - s.grower
            mean_quantity = max(s.pack, MEAN_ACRES * s.per_acre)
            total += self.tx_per_sku_season * share * mean_quantity * s.price * (1 - 2 * RETURN_RATE)
        return total

    @staticmethod
    def keys(skus: list[Sku]) -> list[str]:
        return [s.sku_key for s in skus]

    def flt(self, skus: list[Sku], period_key: str = "incentive_period", tt: str = PURCHASE) -> dict:
        return {"period_key": period_key, "sku_keys": self.keys(skus), "transaction_type": tt}

    def brands(self, pool: list[str], lo: int, hi: int) -> list[str]:
        return sorted(self.rng.sample(pool, min(len(pool), self.rng.randint(lo, hi))))

    @staticmethod
    def skus(mfr: Manufacturer, brands: list[str]) -> list[Sku]:
        return sorted((s for b in brands for s in mfr.brands[b]), key=lambda s: s.idx)

    # ------------------------------------------------------------------ qualifications

    def qualification(self, qtype: str, mfr: Manufacturer, pool: list[str]) -> dict:
        r = self.rng
        q: dict = {"type": qtype, "key": qtype, "label": qtype.replace("_", " ").title(),
                   "operator": "greater_than_or_equal_to"}
        if qtype == "aggregated_amount":
            skus = self.skus(mfr, self.brands(pool, 4, 12))
            q["key"], q["label"] = "minimum_purchases", "Minimum Purchases"
            q["value"] = nice(self.expected(skus) * r.uniform(0.35, 0.8))
            q["filters"] = [self.flt(skus)]
        elif qtype == "yoy_amount_index":
            skus = self.skus(mfr, self.brands(pool, 4, 12))
            q["key"], q["label"] = "yoy_growth", "Year-over-Year Growth"
            q["value"] = float(r.choice([90, 95, 95, 100, 100, 105]))
            q["numerator"] = {"filters": [self.flt(skus)]}
            q["denominator"] = {"filters": [self.flt(skus, "prior_year_period")]}
        elif qtype == "brand_count":
            brands = self.brands(pool, 4, 8)
            skus = self.skus(mfr, brands)
            q["key"], q["label"] = "brand_count", "Minimum Brand Count"
            q["value"] = float(r.choice([2, 2, 3]))
            q["filters"] = [self.flt(skus)]
            q["brand_keys"] = brands if r.random() < 0.5 else []
            q["excluded_sku_keys"] = []
        else:  # pragma: no cover
            raise ValueError(qtype)
        q["attributes"] = []
        return q

    # ------------------------------------------------------------------ offers

    def standard(self, offer: dict, mfr: Manufacturer, pool: list[str]) -> None:
        r = self.rng
        calc = r.choices(["percent_of_amount", "dollars_per_unit", "fixed_amount"], weights=[75, 20, 5])[0]
        skus = self.skus(mfr, self.brands(pool, 2, 3 if calc == "fixed_amount" else 4))
        tt = PURCHASE if r.random() < 0.85 else SALE
        base = r.choice([1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0])
        rates = []
        for s in skus:
            if calc == "percent_of_amount":
                rate, measure = base + (0.5 if r.random() < 0.1 else 0.0), "percent"
            elif calc == "dollars_per_unit":
                rate, measure = round(max(0.05, s.price * base / 100), 2), "dollars"
            else:
                rate, measure = float(r.choice([250, 500, 750, 1000])), "dollars"
            rates.append({"sku_key": s.sku_key, "rate": rate, "measure": measure})
        offer.update(calculator_key=calc, strategy_key="standard", sku_keys=self.keys(skus), transaction_types=[tt],
                     incentives=[{"key": f"incentive_period_{tt}", "label": "Full Season Incentive",
                                  "period_key": "incentive_period", "transaction_type": tt, "rates": rates}])

    def stepped(self, offer: dict, mfr: Manufacturer, pool: list[str]) -> None:
        r = self.rng
        calc = r.choices(["percent_of_amount", "dollars_per_unit"], weights=[80, 20])[0]
        earning = self.skus(mfr, self.brands(pool, 2, 5))
        basis = self.skus(mfr, self.brands(pool, 3, 8)) if r.random() < 0.3 else earning
        exp = max(self.expected(basis), 1.0)
        n_tiers = r.randint(2, 4)
        multipliers = sorted(r.sample([0.15, 0.3, 0.6, 1.0, 1.5, 2.5], n_tiers))
        thresholds = sorted({nice(exp * m) for m in multipliers})
        first, step = r.choice([1.0, 1.5, 2.0, 2.5]), r.choice([0.5, 1.0, 1.5])
        tiers = []
        for i, th in enumerate(thresholds):
            if calc == "percent_of_amount":
                value, measure = first + i * step, "percent"
            else:
                value, measure = round(0.25 + i * 0.5 * step, 2), "dollars"
            tiers.append({"key": f"tier_{i + 1}", "threshold": th, "value": value, "measure": measure})
        offer.update(calculator_key=calc, strategy_key="stepped", sku_keys=self.keys(earning),
                     transaction_types=[PURCHASE],
                     incentive={"filters": [self.flt(earning)],
                                "threshold_definition": {"type": "aggregated_amount", "filters": [self.flt(basis)]},
                                "rates": tiers})

    def stacked(self, offer: dict, mfr: Manufacturer, pool: list[str]) -> None:
        r = self.rng
        by_category: dict[str, list[str]] = {}
        for b in sorted(mfr.brands):
            by_category.setdefault(mfr.brand_category[b], []).append(b)
        chosen = [r.choice(by_category["seed"]), r.choice(by_category["seed_treatment"])]
        third = [b for c in ("insecticide", "granular") for b in by_category.get(c, [])]
        if third and r.random() < 0.3:
            chosen.append(r.choice(third))
        tt = SALE if r.random() < 0.7 else PURCHASE
        sets, paid = [], []
        for i, brand in enumerate(chosen):
            skus = mfr.brands[brand]  # both pack sizes: one product, one conversion rate
            conv = [{"sku_key": s.sku_key, "rate": s.per_acre, "from": s.uom} for s in skus]
            if i == 0:  # the seed only measures coverage
                rates = [{"sku_key": s.sku_key, "rate": 0.0, "measure": "dollars"} for s in skus]
            else:
                rate = r.choice([0.5, 0.75, 1.0, 1.25, 1.5, 2.0])
                rates = [{"sku_key": s.sku_key, "rate": rate, "measure": "dollars"} for s in skus]
                paid += self.keys(skus)
            sets.append({"key": mfr.brand_category[brand], "period_key": "incentive_period", "transaction_type": tt,
                         "conversion": {"coverage_unit": "acre", "rates": conv}, "rates": rates})
        stacks = [{"key": "_".join(s["key"] for s in sets) + "_stack", "sku_set_keys": [s["key"] for s in sets]}]
        if len(sets) == 3:
            stacks.append({"sku_set_keys": [sets[0]["key"], sets[1]["key"]]})  # default key: joined with _and_
        offer.update(calculator_key="dollars_per_coverage_unit", strategy_key="stacked", sku_keys=sorted(paid),
                     transaction_types=[tt], incentive={"sku_sets": sets, "stacks": stacks})

    # ------------------------------------------------------------------ programs

    def program(self, n: int, mfr: Manufacturer, strategies: list[str], qtypes: list[str]) -> dict:
        r = self.rng
        pool = sorted(r.sample(sorted(mfr.brands), r.randint(4, 12)))
        key = f"{mfr.name}.2026.retailer.p{n:05d}"
        quals = [self.qualification(t, mfr, pool) for t in qtypes]
        offers = []
        names = ["base", "growth", "volume", "loyalty"]
        for o, strategy in enumerate(strategies):
            offer: dict = {"key": f"{key}.{names[o]}", "label": names[o].title() + " Rebate",
                           "attributes": [{"type": "tier", "value": names[o], "label": names[o].title()}],
                           "time_periods": []}
            getattr(self, strategy)(offer, mfr, pool)
            offer["qualifications"] = []
            offer["qualifier"] = None
            offers.append(offer)
        return {"key": key, "label": f"{mfr.name.upper()} Program {n}",
                "attributes": [{"type": "manufacturer", "value": mfr.name, "label": mfr.name.upper()}],
                "time_periods": [period("incentive_period", "2026 Season", INCENTIVE_PERIOD),
                                 period("prior_year_period", "2025 Season", PRIOR_YEAR_PERIOD)],
                "qualifications": quals,
                "qualifier": " AND ".join(q["key"] for q in quals) or None,
                "offers": offers}


def make_programs(rng: random.Random, mfrs: list[Manufacturer], n_programs: int, transactions: int,
                  participants: int) -> list[dict]:
    """`n_programs` programs, the same number for every manufacturer (in turn), with exact quotas
    of offers per program, strategies and qualification types."""
    maker = SeasonsProgramMaker(rng, mfrs, transactions, participants)
    n_offers = quotas(n_programs, {4: OFFERS_PER_PROGRAM[4], 3: OFFERS_PER_PROGRAM[3]}, 2)
    rng.shuffle(n_offers)
    strategies = quotas(sum(n_offers), STRATEGY_SHARE, "standard")
    rng.shuffle(strategies)
    gated = {t: set(rng.sample(range(n_programs), round(n_programs * share)))
             for t, share in QUALIFICATION_SHARE.items()}
    programs, used = [], 0
    for i in range(n_programs):
        mine, used = strategies[used:used + n_offers[i]], used + n_offers[i]
        qtypes = [t for t in QUALIFICATION_SHARE if i in gated[t]]
        programs.append(maker.program(i + 1, mfrs[i % len(mfrs)], mine, qtypes))
    return programs


# --------------------------------------------------------------------------------------------
# Participants and the big tables (DuckDB SQL)
# --------------------------------------------------------------------------------------------


def generate_data(con, tmp: Path, data: Path, rng: random.Random, mfrs: list[Manufacturer],
                  programs: list[dict], n_tx: int, n_ent: int, enrollments: bool, seed: int) -> dict[str, int]:
    skus = [s for m in mfrs for s in m.skus]
    write_csv(tmp / "skus.csv", ["sku_idx", "sku_key", "brand_key", "mfr", "uom", "price", "pack", "per_acre",
                                 "grower"],
              [(s.idx, s.sku_key, s.brand_key, s.mfr, s.uom, s.price, s.pack, s.per_acre, s.grower) for s in skus])
    ents, ent_mfr = [], []
    for e in range(1, n_ent + 1):
        ents.append((e, rng.lognormvariate(0, 0.8)))
        chosen: list[int] = []
        while len(chosen) < MANUFACTURERS_PER_PARTICIPANT:
            m = rng.choices(mfrs, weights=[m.share for m in mfrs])[0].idx
            if m not in chosen:
                chosen.append(m)
        for j, m in enumerate(sorted(chosen)):
            ent_mfr.append((e, j, m, round(rng.uniform(*CARRY_FRACTION), 3), round(rng.uniform(*GROWTH), 3)))
    write_csv(tmp / "ents.csv", ["e", "weight"], ents)
    write_csv(tmp / "ent_mfr.csv", ["e", "j", "m", "f", "g"], ent_mfr)
    write_csv(tmp / "programs.csv", ["p", "m", "program_key"],
              [(i, int(p["key"][3:5]), p["key"]) for i, p in enumerate(programs)])

    def q(sql: str) -> None:
        con.execute(sql)

    for name in ("skus", "ents", "ent_mfr", "programs"):
        q(f"create table {name} as select * from read_csv('{tmp}/{name}.csv', header=true)")
    U = "/ 18446744073709551616.0"  # hash -> [0, 1)

    def rnd(key: str, salt: int) -> str:
        return random_column(key, seed, salt)

    # Carried SKUs of the participant's own manufacturers: each with probability f (at least one),
    # numbered 0..n-1 per participant x manufacturer in hash order (low numbers sell more).
    q(f"""
        create table carry as
        with c as (
            select em.e, em.j, s.sku_idx, {rnd('em.e, s.sku_idx', 31)} as h, em.f
            from ent_mfr em join skus s on s.mfr = em.m
            qualify h {U} < f or row_number() over (partition by em.e, em.j order by h) = 1
        )
        select e, j, sku_idx, (row_number() over (partition by e, j order by h) - 1)::bigint as k,
               count(*) over (partition by e, j) as n_carry
        from c
    """)
    q("""
        create or replace table ent_mfr as
        select em.*, n.n_carry from ent_mfr em join (select distinct e, j, n_carry from carry) n using (e, j)
    """)
    n_slots = max(64 * n_ent, 1)
    q(f"""
        create table slots as
        with w as (
            select e, greatest(1, round(weight / sum(weight) over () * {n_slots}))::bigint as n from ents
        ), c as (select e, n, (sum(n) over (order by e) - n)::bigint as lo from w)
        select unnest(range(lo, lo + n)) as slot, e from c
    """)
    total_slots = con.execute("select count(*) from slots").fetchone()[0]
    n_skus = len(skus)
    purchase_month = month_case("u_month", PURCHASE_MONTHS)
    sale_month = month_case("u_month", SALE_MONTHS)
    q(f"""
        copy (
            with t as (
                select i,
                       ({rnd('i', 41)} % {total_slots})::bigint as slot,
                       {rnd('i', 42)} {U} < {OWN_SHARE} as own,
                       ({rnd('i', 43)} % {MANUFACTURERS_PER_PARTICIPANT})::bigint as j,
                       {rnd('i', 44)} as h_sku,
                       {rnd('i', 45)} {U} as u_season,
                       {rnd('i', 46)} {U} as u_return,
                       {rnd('i', 47)} {U} as u_type,
                       {rnd('i', 48)} {U} as u_month,
                       {rnd('i', 49)} as h_day,
                       {rnd('i', 50)} {U} as u_acres,
                       {rnd('i', 51)} {U} as u_price
                from range({n_tx}) r(i)
            ), picked as (
                -- own: a carried SKU of one of the participant's manufacturers, popular ones more
                -- often; else any SKU the warehouse records, the same volume in both seasons
                select t.*, sl.e,
                       coalesce(c.sku_idx, (1 + t.h_sku % {n_skus})::bigint) as sku_idx,
                       coalesce(em.g, 1.0) as g
                from t
                join slots sl on sl.slot = t.slot
                left join ent_mfr em on t.own and em.e = sl.e and em.j = t.j
                left join carry c
                    on c.e = em.e and c.j = em.j
                   and c.k = floor(em.n_carry * pow((t.h_sku % 1000003) / 1000003.0, 1.6))::bigint
            ), {transaction_rows_sql(sale_month, purchase_month, RETURN_RATE)}
        ) to '{data}/transactions.parquet' (format parquet, compression zstd)
    """)
    q(f"""copy (select sku_key, brand_key from skus order by sku_key)
          to '{data}/products.parquet' (format parquet)""")
    # Program prices of a tenth of the SKUs for the current season.
    priced = sorted(rng.sample(skus, len(skus) // 10), key=lambda s: s.idx)
    write_csv(tmp / "prices.csv", ["sku_key", "price", "start_date", "end_date"],
              [(s.sku_key, round(s.price * rng.uniform(0.85, 0.95), 2), *INCENTIVE_PERIOD) for s in priced])
    q(f"""copy (select sku_key, price::decimal(18, 2) as price, start_date::date as start_date,
                       end_date::date as end_date
                from read_csv('{tmp}/prices.csv', header=true, all_varchar=true) order by all)
          to '{data}/prices.parquet' (format parquet)""")
    for stale in ("properties", "waivers"):
        (data / f"{stale}.parquet").unlink(missing_ok=True)
    enrollment_path = data / "enrollments.parquet"
    if enrollments:
        # 10 programs of each of the participant's 3 manufacturers, picked by hash.
        q(f"""
            copy (
                select 'ent' || lpad(em.e::varchar, 6, '0') as entity_id, p.program_key
                from ent_mfr em join programs p on p.m = em.m
                qualify row_number() over (partition by em.e, em.m order by {rnd('em.e, p.p', 61)})
                        <= {PROGRAMS_PER_MANUFACTURER_ENROLLED}
                order by entity_id, program_key
            ) to '{enrollment_path}' (format parquet)
        """)
    else:
        enrollment_path.unlink(missing_ok=True)
    counts = {}
    for name in ("transactions", "products", "prices", "enrollments"):
        path = data / f"{name}.parquet"
        if path.exists():
            counts[name] = con.execute(f"select count(*) from read_parquet('{path}')").fetchone()[0]
    return counts


def describe(programs: list[dict]) -> str:
    """Offers by strategy and programs by qualification type."""
    strategies: dict[str, int] = {}
    qtypes: dict[str, int] = {}
    for p in programs:
        for o in p["offers"]:
            strategies[o["strategy_key"]] = strategies.get(o["strategy_key"], 0) + 1
        for t in {q["type"] for q in p["qualifications"]}:
            qtypes[t] = qtypes.get(t, 0) + 1
    ungated = sum(1 for p in programs if not p["qualifications"])
    return ("offers " + ", ".join(f"{k} {v:,}" for k, v in sorted(strategies.items()))
            + "; programs gated by " + ", ".join(f"{k} {v:,}" for k, v in sorted(qtypes.items()))
            + f", none {ungated:,}")


assert math.isclose(sum(OFFERS_PER_PROGRAM.values()), 1.0)
