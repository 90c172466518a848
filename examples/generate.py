"""Generate the example data set of the incentive (rebate) engine.

Writes, next to this script:

- ``programs.json``: six programs of four fictional manufacturers (northfield, prairie_chem,
  agri_shield, harvest_max) in the GET /programs shape of the API reference;
- ``data/transactions.csv``: about 4,000 transactions of 20 retailers over the prior season
  (2024-09-01..2025-08-31) and the current one (2025-09-01..2026-08-31);
- ``data/products.csv``, ``data/properties.csv``, ``data/waivers.csv``, ``data/prices.csv``.

The output is deterministic (``random.Random(2026)``, sorted rows, no timestamps) and committed:
re-running ``python examples/generate.py`` must leave ``git diff`` empty. Standard library only.

Together the programs use every qualification type, program- and offer-level qualifications, a
qualifier with AND / OR / parentheses, every standard calculator, an offer with its own time
period, stepped offers on an aggregated_amount, an aggregated_quantity and a property threshold,
and two stacked offers (a two-set and a three-set stack). Retailers come in three sizes so that
every qualification is met by some retailers and missed by others.
"""

from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

SEED = 2026

PRIOR = (date(2024, 9, 1), date(2025, 8, 31))
CURRENT = (date(2025, 9, 1), date(2026, 8, 31))
SEASONS = {"prior": PRIOR, "current": CURRENT}

PURCHASE = "retailer_purchases_from_distribution"
SALE = "retailer_sales_to_growers"

# Share of a season's purchases made in each month, September first (early order in the fall,
# the main application season in spring).
PURCHASE_MONTHS = [0.07, 0.08, 0.09, 0.05, 0.05, 0.08, 0.13, 0.16, 0.14, 0.09, 0.04, 0.02]
# Grower seed and seed treatment sales: planting season.
SALE_MONTHS = [0.0, 0.0, 0.01, 0.02, 0.05, 0.16, 0.30, 0.33, 0.11, 0.02, 0.0, 0.0]


# --------------------------------------------------------------------------------------------
# Catalogue
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sku:
    """One SKU of the catalogue and how retailers buy it."""

    sku_key: str
    brand_key: str
    manufacturer: str
    uom_key: str
    price: float  # typical invoice price per uom
    pack: float  # purchases are multiples of this quantity (0.01 = metered bulk)
    min_qty: float  # smallest purchase
    annual: float  # dollars bought in a season by a retailer of scale 1.0
    freq: float  # purchases in a season by a retailer of scale 1.0
    in_catalogue: bool = True  # False: deliberately missing from products.csv


SKUS: list[Sku] = [
    # northfield: seed and seed-applied products
    Sku("northfield_soybean_seed_nf2850_unit_31207", "northfield_soybean_seed", "northfield",
        "unit", 58.0, 10, 10, 42000, 4),
    Sku("northfield_corn_seed_nf6120_unit_38841", "northfield_corn_seed", "northfield",
        "unit", 285.0, 5, 5, 60000, 4),
    Sku("shield_start_seed_treatment_2.5_gal_52112", "shield_start_seed_treatment", "northfield",
        "gal", 515.0, 2.5, 2.5, 4600, 3),
    Sku("root_armor_seed_treatment_1_gal_52877", "root_armor_seed_treatment", "northfield",
        "gal", 560.0, 1, 1, 3400, 3),
    Sku("furrow_force_insecticide_40_lb_64410", "furrow_force_insecticide", "northfield",
        "lb", 9.8, 40, 40, 4800, 3),
    # prairie_chem: herbicides
    Sku("knock_down_herbicide_2.5_gal_44159", "knock_down_herbicide", "prairie_chem",
        "gal", 38.0, 5, 5, 12000, 8),
    Sku("knock_down_herbicide_bulk_52335", "knock_down_herbicide", "prairie_chem",
        "gal", 34.0, 0.01, 110, 22000, 3),
    Sku("prairie_pass_herbicide_2.5_gal_28816", "prairie_pass_herbicide", "prairie_chem",
        "gal", 62.0, 5, 5, 15000, 8),
    Sku("prairie_pass_herbicide_bulk_28904", "prairie_pass_herbicide", "prairie_chem",
        "gal", 57.0, 0.01, 110, 20000, 3),
    Sku("clear_field_herbicide_5_lb_37720", "clear_field_herbicide", "prairie_chem",
        "lb", 24.0, 5, 5, 6000, 3),
    # agri_shield: crop protection
    Sku("agri_shield_insecticide_2.5_gal_53551", "agri_shield_insecticide", "agri_shield",
        "gal", 55.0, 5, 5, 30000, 8),
    Sku("agri_shield_insecticide_bulk_63374", "agri_shield_insecticide", "agri_shield",
        "gal", 49.0, 0.01, 110, 28000, 3),
    Sku("crop_guard_30_l_herbicide_2.5_gal_22654", "crop_guard_30_l_herbicide", "agri_shield",
        "gal", 41.0, 5, 5, 14000, 8),
    Sku("field_hammer_fungicide_1_gal_61492", "field_hammer_fungicide", "agri_shield",
        "gal", 118.0, 2, 2, 12000, 6),
    Sku("field_hammer_fungicide_bulk_61530", "field_hammer_fungicide", "agri_shield",
        "gal", 105.0, 0.01, 55, 16000, 3),
    # harvest_max: herbicide, fungicide, micronutrient
    Sku("harvest_max_pro_herbicide_2.5_gal_46367", "harvest_max_pro_herbicide", "harvest_max",
        "gal", 44.0, 5, 5, 14000, 8),
    Sku("harvest_max_pro_herbicide_bulk_73826", "harvest_max_pro_herbicide", "harvest_max",
        "gal", 27.0, 0.01, 110, 20000, 3),
    Sku("harvest_max_xtra_fungicide_2.5_gal_80412", "harvest_max_xtra_fungicide", "harvest_max",
        "gal", 96.0, 5, 5, 10000, 6),
    Sku("harvest_max_zinc_micronutrient_25_lb_bag_19025", "harvest_max_zinc_micronutrient",
        "harvest_max", "bag", 38.0, 1, 10, 4000, 3),
    # Not in products.csv: a new pack size not yet catalogued and an unknown competitor SKU.
    Sku("knock_down_herbicide_30_gal_90417", "knock_down_herbicide", "prairie_chem",
        "gal", 36.0, 30, 30, 0, 0, in_catalogue=False),
    Sku("valley_generic_glyphosate_2.5_gal_90233", "valley_generic_glyphosate", "valley",
        "gal", 21.0, 5, 5, 0, 0, in_catalogue=False),
]
SKU = {s.sku_key: s for s in SKUS}

SOY_SEED = "northfield_soybean_seed_nf2850_unit_31207"
CORN_SEED = "northfield_corn_seed_nf6120_unit_38841"
SOY_TREATMENT = "shield_start_seed_treatment_2.5_gal_52112"
CORN_TREATMENT = "root_armor_seed_treatment_1_gal_52877"
IN_FURROW = "furrow_force_insecticide_40_lb_64410"
KD_JUG = "knock_down_herbicide_2.5_gal_44159"
KD_BULK = "knock_down_herbicide_bulk_52335"
PP_JUG = "prairie_pass_herbicide_2.5_gal_28816"
PP_BULK = "prairie_pass_herbicide_bulk_28904"
CF_LB = "clear_field_herbicide_5_lb_37720"
AS_JUG = "agri_shield_insecticide_2.5_gal_53551"
AS_BULK = "agri_shield_insecticide_bulk_63374"
CG_JUG = "crop_guard_30_l_herbicide_2.5_gal_22654"
FH_GAL = "field_hammer_fungicide_1_gal_61492"
FH_BULK = "field_hammer_fungicide_bulk_61530"
HM_JUG = "harvest_max_pro_herbicide_2.5_gal_46367"
HM_BULK = "harvest_max_pro_herbicide_bulk_73826"
HM_FUNG = "harvest_max_xtra_fungicide_2.5_gal_80412"
HM_ZINC = "harvest_max_zinc_micronutrient_25_lb_bag_19025"
KD_DRUM = "knock_down_herbicide_30_gal_90417"
GENERIC = "valley_generic_glyphosate_2.5_gal_90233"

# Seeding / application rates (units of the SKU's uom per acre).
SOY_SEED_PER_ACRE = 1.0  # one 140k-seed unit per acre
CORN_SEED_PER_ACRE = 0.4  # one 80k-kernel unit plants 2.5 acres
SOY_TREATMENT_PER_ACRE = 0.00921875  # 1.18 fl oz / 128
CORN_TREATMENT_PER_ACRE = 0.0046875  # 0.6 fl oz / 128
IN_FURROW_PER_ACRE = 0.5  # 8 oz of granules

# Grower (retail) prices per uom.
GROWER_PRICE = {SOY_SEED: 64.0, CORN_SEED: 315.0, SOY_TREATMENT: 575.0,
                CORN_TREATMENT: 620.0, IN_FURROW: 11.2}


# --------------------------------------------------------------------------------------------
# Retailers
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Retailer:
    """A participant: its size and its loyalty to each manufacturer."""

    entity_id: str
    scale: float  # 1.0 = a typical mid-size retailer
    affinity: dict[str, float]  # manufacturer -> multiplier on purchases
    growth: dict[str, float]  # manufacturer -> current season / prior season
    carries: frozenset[str]  # sku_keys bought from distribution
    sells_seed: bool  # sells seed and seed treatment to growers
    brand_growth: dict[str, float] = field(default_factory=dict)  # brand -> extra growth
    new_brands: frozenset[str] = frozenset()  # brands not bought in the prior season


# Sizes: four big, eight mid-size, eight small retailers (listed, then shuffled onto ids).
SCALES = [3.6, 3.1, 2.7, 2.4, 1.6, 1.45, 1.3, 1.2, 1.1, 1.0, 0.9, 0.8,
          0.45, 0.4, 0.35, 0.3, 0.28, 0.24, 0.2, 0.15]
MANUFACTURERS = ["agri_shield", "harvest_max", "northfield", "prairie_chem"]


def make_retailers(rng: random.Random) -> list[Retailer]:
    """Draw the 20 retailers, then pin a few traits the example is meant to show."""
    scales = SCALES[:]
    rng.shuffle(scales)
    retailers: list[Retailer] = []
    for i, scale in enumerate(scales, start=1):
        entity_id = f"retailer_{i:03d}"
        affinity = {m: round(rng.uniform(0.35, 1.5), 2) for m in MANUFACTURERS}
        growth = {m: round(rng.uniform(0.8, 1.3), 2) for m in MANUFACTURERS}
        carry_p = 0.97 if scale >= 2 else 0.85 if scale >= 0.8 else 0.6
        sells_seed = rng.random() < (0.8 if scale >= 0.8 else 0.25)
        # Seed and seed-applied products are bought by the retailers that sell them to growers.
        carries = {s.sku_key for s in SKUS if s.in_catalogue and s.manufacturer != "northfield"
                   and rng.random() < carry_p}
        if sells_seed:
            carries |= {SOY_SEED, CORN_SEED, SOY_TREATMENT, CORN_TREATMENT, IN_FURROW}
        retailers.append(Retailer(entity_id, scale, affinity, growth, frozenset(carries),
                                  sells_seed))
    return pin_traits(retailers)


def pin_traits(retailers: list[Retailer]) -> list[Retailer]:
    """Make sure the edge cases of the example exist whatever the draw."""
    by_size = sorted(retailers, key=lambda r: (-r.scale, r.entity_id))
    pinned: dict[str, Retailer] = {}
    # A big retailer that switched fungicide supplier: field_hammer collapses this season
    # (fails the 3-year average index).
    r = by_size[1]
    pinned[r.entity_id] = replace(r, brand_growth={"field_hammer_fungicide": 0.15})
    # A mid-size retailer that buys knock_down only in bulk (excluded from the brand count)
    # and prairie_pass only in jugs: one brand counted, fails the brand count.
    r = by_size[5]
    prairie = {s.sku_key for s in SKUS if s.manufacturer == "prairie_chem"}
    pinned[r.entity_id] = replace(r, carries=(r.carries - prairie) | {KD_BULK, PP_JUG})
    # A mid-size retailer new to field_hammer: no prior purchases (denominator 0: met).
    r = by_size[7]
    pinned[r.entity_id] = replace(r, new_brands=frozenset({"field_hammer_fungicide"}),
                                  carries=r.carries | {FH_GAL})
    # The biggest retailer: a large harvest_max herbicide buyer whose volume drops this season
    # (meets the minimum gallons, fails the volume growth: waived in waivers.csv).
    r = by_size[0]
    pinned[r.entity_id] = replace(r, brand_growth={"harvest_max_pro_herbicide": 0.8},
                                  affinity={**r.affinity, "harvest_max": 1.2},
                                  carries=r.carries | {HM_JUG, HM_BULK})
    # A mid-size retailer loyal to harvest_max: low prairie_chem share of wallet.
    r = by_size[9]
    pinned[r.entity_id] = replace(r, affinity={**r.affinity, "prairie_chem": 0.25,
                                               "harvest_max": 1.6})
    return [pinned.get(r.entity_id, r) for r in retailers]


# --------------------------------------------------------------------------------------------
# Transactions
# --------------------------------------------------------------------------------------------

Row = dict[str, Any]  # transaction_date (date), entity_id, transaction_type, sku_key, qty, amount


def pick_date(rng: random.Random, season: tuple[date, date], months: list[float]) -> date:
    """A date of the season, the month drawn by weight."""
    start, _ = season
    m = rng.choices(range(12), weights=months)[0]
    year = start.year + (start.month + m - 1) // 12
    month = (start.month + m - 1) % 12 + 1
    first = date(year, month, 1)
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return first + timedelta(days=rng.randrange((nxt - first).days))


def to_pack(qty: float, sku: Sku) -> float:
    """Round a wanted quantity to the SKU's pack size (at least its minimum)."""
    qty = max(qty, sku.min_qty)
    if sku.pack >= 1:
        return max(sku.min_qty, round(qty / sku.pack) * sku.pack)
    return round(qty, 2)


def money(x: float) -> float:
    """Round to cents."""
    return round(x, 2)


def purchases(rng: random.Random, r: Retailer) -> list[Row]:
    """The retailer's purchases from distribution, both seasons."""
    rows: list[Row] = []
    for sku in SKUS:
        if sku.sku_key not in r.carries:
            continue
        for name, season in SEASONS.items():
            dollars = sku.annual * r.scale * r.affinity[sku.manufacturer]
            dollars *= rng.uniform(0.85, 1.15)
            if name == "current":
                dollars *= r.growth[sku.manufacturer] * r.brand_growth.get(sku.brand_key, 1.0)
            elif sku.brand_key in r.new_brands:
                continue  # new to the brand: no prior-season purchases
            n = max(1, round(1.3 * sku.freq * r.scale ** 0.5 * rng.uniform(0.8, 1.2)))
            n = max(1, min(n, int(dollars / (sku.min_qty * sku.price))))  # no tiny orders
            for _ in range(n):
                share = dollars / n * rng.uniform(0.6, 1.4)
                qty = to_pack(share / sku.price, sku)
                unit_price = sku.price * rng.uniform(0.97, 1.04)
                rows.append({"transaction_date": pick_date(rng, season, PURCHASE_MONTHS),
                             "entity_id": r.entity_id, "transaction_type": PURCHASE,
                             "sku_key": sku.sku_key, "quantity": qty,
                             "amount": money(qty * unit_price)})
    return rows


def grower_sales(rng: random.Random, r: Retailer) -> list[Row]:
    """Seed, seed treatment and in-furrow sales to growers (what the stacked offers pay on)."""
    rows: list[Row] = []
    if not r.sells_seed:
        return rows
    # How thoroughly this retailer's growers treat their seed (1.0 = every acre).
    soy_attach = rng.uniform(0.55, 1.25)
    corn_attach = rng.uniform(0.5, 1.15)
    furrow_attach = rng.uniform(0.35, 1.1)

    def sale(season: tuple[date, date], sku_key: str, qty: float, when: date | None = None
             ) -> None:
        if qty <= 0:
            return
        price = GROWER_PRICE[sku_key] * rng.uniform(0.96, 1.04)
        rows.append({"transaction_date": when or pick_date(rng, season, SALE_MONTHS),
                     "entity_id": r.entity_id, "transaction_type": SALE, "sku_key": sku_key,
                     "quantity": qty, "amount": money(qty * price)})

    for season in SEASONS.values():
        for _ in range(max(2, round(8 * r.scale ** 0.5 * rng.uniform(0.8, 1.2)))):
            units = rng.randrange(4, 60) * 10  # soybean units = acres
            when = pick_date(rng, season, SALE_MONTHS)
            sale(season, SOY_SEED, units, when)
            if rng.random() < 0.8:
                sale(season, SOY_TREATMENT,
                     round(units * SOY_TREATMENT_PER_ACRE * soy_attach * rng.uniform(0.8, 1.2),
                           2), when + timedelta(days=rng.randrange(0, 20)))
        for _ in range(max(2, round(6 * r.scale ** 0.5 * rng.uniform(0.8, 1.2)))):
            units = rng.randrange(8, 90) * 5  # corn units
            acres = units / CORN_SEED_PER_ACRE
            when = pick_date(rng, season, SALE_MONTHS)
            sale(season, CORN_SEED, units, when)
            if rng.random() < 0.75:
                sale(season, CORN_TREATMENT,
                     round(acres * CORN_TREATMENT_PER_ACRE * corn_attach * rng.uniform(0.8, 1.2),
                           2), when + timedelta(days=rng.randrange(0, 20)))
            if rng.random() < 0.6:
                lbs = acres * IN_FURROW_PER_ACRE * furrow_attach * rng.uniform(0.8, 1.2)
                sale(season, IN_FURROW, max(40, round(lbs / 40) * 40),
                     when + timedelta(days=rng.randrange(0, 30)))
    return [row for row in rows if row["transaction_date"] <= CURRENT[1]]


def uncatalogued(rng: random.Random, retailers: list[Retailer]) -> list[Row]:
    """A few purchases of SKUs missing from products.csv."""
    rows: list[Row] = []
    picks = [(KD_DRUM, 4), (GENERIC, 5)]
    for sku_key, n in picks:
        sku = SKU[sku_key]
        for _ in range(n):
            r = rng.choice(retailers)
            qty = sku.pack * rng.randrange(1, 8)
            rows.append({"transaction_date": pick_date(rng, CURRENT, PURCHASE_MONTHS),
                         "entity_id": r.entity_id, "transaction_type": PURCHASE,
                         "sku_key": sku_key, "quantity": qty,
                         "amount": money(qty * sku.price * rng.uniform(0.97, 1.04))})
    return rows


def returns(rng: random.Random, rows: list[Row], rate: float = 0.03) -> list[Row]:
    """About ``rate`` of the rows get a later partial or full return (negative rows)."""
    out: list[Row] = []
    for row in rows:
        if rng.random() >= rate:
            continue
        sku = SKU[row["sku_key"]]
        qty = row["quantity"]
        if sku.pack >= 1:
            packs = round(qty / sku.pack)
            back = sku.pack * rng.randrange(1, packs + 1) if packs >= 1 else qty
        else:
            back = round(qty * rng.uniform(0.05, 0.5), 2)
        back = min(back, qty)
        season_end = PRIOR[1] if row["transaction_date"] <= PRIOR[1] else CURRENT[1]
        when = min(row["transaction_date"] + timedelta(days=rng.randrange(5, 45)), season_end)
        out.append({**row, "transaction_date": when, "quantity": -back,
                    "amount": -money(row["amount"] * back / qty)})
    return out


def fmt_qty(x: float) -> str:
    """A quantity with at most 2 decimals and no trailing zeros."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def fmt_amount(x: float) -> str:
    """A dollar amount with 2 decimals."""
    s = f"{x:.2f}"
    return "0.00" if s == "-0.00" else s


def make_transactions(rng: random.Random, retailers: list[Retailer]) -> list[dict[str, str]]:
    """All transactions, sorted by date, with sequential ids."""
    rows: list[Row] = []
    for r in retailers:
        rows += purchases(rng, r)
        rows += grower_sales(rng, r)
    rows += uncatalogued(rng, retailers)
    rows += returns(rng, rows)
    rows.sort(key=lambda t: (t["transaction_date"], t["entity_id"], t["transaction_type"],
                             t["sku_key"], t["quantity"] < 0, t["quantity"], t["amount"]))
    out = []
    for i, t in enumerate(rows, start=1):
        out.append({"transaction_id": f"T{i:06d}", "entity_id": t["entity_id"],
                    "transaction_type": t["transaction_type"],
                    "transaction_date": t["transaction_date"].isoformat(),
                    "sku_key": t["sku_key"], "quantity": fmt_qty(t["quantity"]),
                    "uom_key": SKU[t["sku_key"]].uom_key, "amount": fmt_amount(t["amount"])})
    return out


# --------------------------------------------------------------------------------------------
# Programs
# --------------------------------------------------------------------------------------------


def period(key: str, label: str, start: str, end: str) -> dict[str, Any]:
    """A time period."""
    def nice(d: str) -> str:  # "Sep 1, 2025" (no strftime: %b depends on the locale)
        x = date.fromisoformat(d)
        return f"{MONTHS[x.month - 1]} {x.day}, {x.year}"
    return {"key": key, "label": label, "start_date": start, "start_date_label": nice(start),
            "end_date": end, "end_date_label": nice(end)}


MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
INCENTIVE_PERIOD = period("incentive_period", "2026 Season", "2025-09-01", "2026-08-31")
PRIOR_YEAR_PERIOD = period("prior_year_period", "2025 Season", "2024-09-01", "2025-08-31")
PRIOR_THREE_YEAR_PERIOD = period("prior_three_year_period", "2023-2025 Seasons",
                                 "2022-09-01", "2025-08-31")
EARLY_ORDER_PERIOD = period("early_order_period", "Early Order", "2025-09-01", "2025-11-30")


def filt(skus: list[str], period_key: str = "incentive_period",
         transaction_type: str = PURCHASE) -> dict[str, Any]:
    """A filter entry."""
    return {"period_key": period_key, "sku_keys": skus, "transaction_type": transaction_type}


def qual(type_: str, key: str, label: str, operator: str, value: Any,
         **rest: Any) -> dict[str, Any]:
    """A qualification definition."""
    return {"type": type_, "key": key, "label": label, "operator": operator, "value": value,
            **rest, "attributes": []}


def ratio(num: list[str], den: list[str], den_period: str = "incentive_period",
          divisor: float | None = None) -> dict[str, Any]:
    """numerator / denominator of a ratio qualification."""
    denominator: dict[str, Any] = {"filters": [filt(den, den_period)]}
    if divisor is not None:
        denominator["divisor"] = divisor
    return {"numerator": {"filters": [filt(num)]}, "denominator": denominator}


def attr(type_: str, value: str, label: str) -> dict[str, str]:
    """An attribute."""
    return {"type": type_, "value": value, "label": label}


def offer(program_key: str, name: str, label: str, tier: str, sku_keys: list[str],
          transaction_types: list[str], strategy_key: str, calculator_key: str,
          incentive: dict[str, Any] | list[dict[str, Any]],
          qualifications: list[dict[str, Any]] | None = None, qualifier: str | None = None,
          time_periods: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An offer; ``incentive`` is the incentives array of standard offers, else the object."""
    body: dict[str, Any] = {
        "key": f"{program_key}.{name}", "label": label,
        "attributes": [attr("tier", tier, label)],
        "sku_keys": sorted(sku_keys), "time_periods": time_periods or [],
        "transaction_types": transaction_types,
        "calculator_key": calculator_key, "strategy_key": strategy_key,
    }
    body["incentives" if strategy_key == "standard" else "incentive"] = incentive
    body["qualifications"] = qualifications or []
    body["qualifier"] = qualifier
    return body


def program(manufacturer: str, scope: str, name: str, label: str,
            time_periods: list[dict[str, Any]], offers: list[dict[str, Any]],
            qualifications: list[dict[str, Any]] | None = None,
            qualifier: str | None = None) -> dict[str, Any]:
    """A program; its key is ``{manufacturer}.2026.retailer.{scope}.{name}``."""
    return {
        "key": program_key(manufacturer, scope, name), "label": label,
        "attributes": [attr("manufacturer", manufacturer, manufacturer.replace("_", " ").title()),
                       attr("scope", scope, scope.title())],
        "time_periods": time_periods,
        "qualifications": qualifications or [], "qualifier": qualifier,
        "offers": sorted(offers, key=lambda o: o["key"]),
    }


def program_key(manufacturer: str, scope: str, name: str) -> str:
    """Program key convention."""
    return f"{manufacturer}.2026.retailer.{scope}.{name}"


def std_incentive(rates: dict[str, float], measure: str, label: str,
                  period_key: str = "incentive_period", key: str | None = None
                  ) -> dict[str, Any]:
    """One entry of a standard offer's incentives (no key: the engine generates it)."""
    entry: dict[str, Any] = {}
    if key is not None:
        entry["key"] = key
    entry.update({"label": label, "period_key": period_key, "transaction_type": PURCHASE,
                  "rates": [{"sku_key": s, "rate": r, "measure": measure}
                            for s, r in sorted(rates.items())]})
    return entry


def make_programs() -> list[dict[str, Any]]:
    """The six example programs."""
    periods = [INCENTIVE_PERIOD, PRIOR_YEAR_PERIOD]
    programs = []

    # -- agri_shield national crop protection: program-level AND/OR qualifier ------------------
    pk = program_key("agri_shield", "national", "crop_protection")
    agri = [AS_JUG, AS_BULK, CG_JUG, FH_GAL, FH_BULK]
    programs.append(program(
        "agri_shield", "national", "crop_protection", "Agri Shield Crop Protection Rewards",
        periods,
        qualifications=[
            qual("aggregated_amount", "min_purchases", "Minimum Crop Protection Purchases",
                 "greater_than_or_equal_to", 100000.0, filters=[filt(agri)]),
            qual("yoy_amount_index", "yoy_growth", "Year-over-Year Growth",
                 "greater_than_or_equal_to", 105.0,
                 **ratio(agri, agri, den_period="prior_year_period")),
            qual("property", "business_plan", "Business Plan Achievement",
                 "greater_than_or_equal_to", 85.0,
                 property={"key": "business_plan_achieved_percent", "type": "number",
                           "level": "request"}),
        ],
        qualifier="min_purchases AND (yoy_growth OR business_plan)",
        offers=[
            offer(pk, "base", "Base Rebate", "base", agri, [PURCHASE], "standard",
                  "percent_of_amount",
                  [std_incentive({s: 3.0 for s in agri}, "percent", "Full Season Incentive",
                                 key="incentive_period_retailer_purchases_from_distribution")]),
            offer(pk, "early_order", "Early Order Bonus", "early_order",
                  [AS_JUG, AS_BULK, FH_GAL, FH_BULK], [PURCHASE], "standard",
                  "dollars_per_unit",
                  [std_incentive({AS_JUG: 2.0, AS_BULK: 2.0, FH_GAL: 4.0, FH_BULK: 4.0},
                                 "dollars", "Early Order Incentive",
                                 period_key="early_order_period")],
                  time_periods=[EARLY_ORDER_PERIOD]),
            offer(pk, "insecticide_accelerator", "Insecticide Accelerator", "accelerator",
                  [AS_JUG, AS_BULK], [PURCHASE], "stepped", "percent_of_amount",
                  {"filters": [filt([AS_JUG, AS_BULK])],
                   "threshold_definition": {"type": "aggregated_amount",
                                            "filters": [filt([CG_JUG, FH_GAL, FH_BULK])]},
                   "rates": [
                       {"key": "6_percent_greater_than_or_equal_to_80000", "threshold": 80000.0,
                        "rate": 6.0, "measure": "percent"},
                       {"key": "4_percent_greater_than_or_equal_to_40000", "threshold": 40000.0,
                        "rate": 4.0, "measure": "percent"},
                       {"key": "2_percent_greater_than_or_equal_to_15000", "threshold": 15000.0,
                        "rate": 2.0, "measure": "percent"},
                   ]}),
        ]))

    # -- agri_shield local sustainability: 3-year average, boolean entity property, fixed ------
    pk = program_key("agri_shield", "local", "sustainability")
    fung = [FH_GAL, FH_BULK]
    programs.append(program(
        "agri_shield", "local", "sustainability", "Agri Shield Sustainability Partner",
        periods + [PRIOR_THREE_YEAR_PERIOD],
        qualifications=[
            qual("amount_average_index", "three_year_average", "3-Year Average Fungicide Purchases",
                 "greater_than_or_equal_to", 100.0,
                 **ratio(fung, fung, den_period="prior_three_year_period", divisor=3.0)),
        ],
        qualifier="three_year_average",
        offers=[
            offer(pk, "certified_bonus", "Certified Retailer Bonus", "bonus", fung, [PURCHASE],
                  "standard", "fixed_amount",
                  [std_incentive({FH_GAL: 750.0, FH_BULK: 1500.0}, "dollars",
                                 "Certified Retailer Bonus")],
                  qualifications=[
                      qual("property", "sustainability_certified", "Sustainability Certification",
                           "equal_to", True,
                           property={"key": "is_sustainability_certified", "type": "boolean",
                                     "level": "entity"}),
                  ],
                  qualifier="sustainability_certified"),
        ]))

    # -- harvest_max national loyalty: property-stepped, offer-level quantity qualifications ---
    pk = program_key("harvest_max", "national", "loyalty")
    hm_all = [HM_JUG, HM_BULK, HM_FUNG, HM_ZINC]
    hm_herb = [HM_JUG, HM_BULK]
    programs.append(program(
        "harvest_max", "national", "loyalty", "Harvest Max Retail Loyalty", periods,
        offers=[
            offer(pk, "business_plan", "Business Plan Reward", "business_plan", hm_all,
                  [PURCHASE], "stepped", "percent_of_amount",
                  {"filters": [filt(hm_all)],
                   "threshold_definition": {
                       "type": "property",
                       "property": {"key": "business_plan_achieved_percent", "type": "number",
                                    "level": "request"}},
                   "rates": [
                       {"key": "2_percent_greater_than_or_equal_to_100", "threshold": 100.0,
                        "value": 2.0, "measure": "percent"},
                       {"threshold": 85.0, "value": 1.9, "measure": "percent"},
                       {"key": "1.88_percent_greater_than_or_equal_to_75", "threshold": 75.0,
                        "value": 1.88, "measure": "percent"},
                   ]}),
            offer(pk, "growth", "Herbicide Growth Bonus", "growth", hm_herb, [PURCHASE],
                  "standard", "dollars_per_unit",
                  [std_incentive({HM_JUG: 1.25, HM_BULK: 0.9}, "dollars",
                                 "Herbicide Growth Incentive")],
                  qualifications=[
                      qual("aggregated_quantity", "minimum_gallons", "Minimum Gallons Purchased",
                           "greater_than_or_equal_to", 800.0, filters=[filt(hm_herb)]),
                      qual("yoy_quantity_index", "herbicide_volume_growth",
                           "Year-over-Year Herbicide Volume Growth", "greater_than_or_equal_to",
                           110.0, **ratio(hm_herb, hm_herb, den_period="prior_year_period")),
                  ],
                  qualifier="minimum_gallons AND herbicide_volume_growth"),
        ]))

    # -- northfield: seed volume (standard) and seed treatment pair-up (stacked) -------------
    pk = program_key("northfield", "national", "seed_volume")
    seeds = [SOY_SEED, CORN_SEED]
    programs.append(program(
        "northfield", "national", "seed_volume", "Northfield Seed Volume Incentive", periods,
        qualifications=[
            qual("aggregated_quantity", "min_seed_units", "Minimum Seed Units Purchased",
                 "greater_than_or_equal_to", 1000.0, filters=[filt(seeds)]),
        ],
        qualifier="min_seed_units",
        offers=[
            offer(pk, "volume", "Seed Volume Rebate", "base", seeds, [PURCHASE], "standard",
                  "dollars_per_unit",
                  [std_incentive({SOY_SEED: 3.0, CORN_SEED: 8.0}, "dollars",
                                 "Seed Volume Incentive")]),
        ]))

    pk = program_key("northfield", "local", "seed_treatment_pair_up")
    soy_sets = [
        {"key": "seed", "period_key": "incentive_period", "transaction_type": SALE,
         "conversion": {"coverage_unit": "acre",
                        "rates": [{"sku_key": SOY_SEED, "rate": SOY_SEED_PER_ACRE,
                                   "from": "unit"}]},
         "rates": [{"sku_key": SOY_SEED, "rate": 0.0, "measure": "dollars"}]},
        {"key": "seed_treatment", "period_key": "incentive_period", "transaction_type": SALE,
         "conversion": {"coverage_unit": "acre",
                        "rates": [{"sku_key": SOY_TREATMENT, "rate": SOY_TREATMENT_PER_ACRE,
                                   "from": "gal"}]},
         "rates": [{"sku_key": SOY_TREATMENT, "rate": 0.75, "measure": "dollars"}]},
    ]
    corn_sets = [
        # The seed is only in the conversion: an anchor with rate 0.
        {"key": "corn_seed", "period_key": "incentive_period", "transaction_type": SALE,
         "conversion": {"coverage_unit": "acre",
                        "rates": [{"sku_key": CORN_SEED, "rate": CORN_SEED_PER_ACRE,
                                   "from": "unit"}]},
         "rates": []},
        {"key": "corn_seed_treatment", "period_key": "incentive_period", "transaction_type": SALE,
         "conversion": {"coverage_unit": "acre",
                        "rates": [{"sku_key": CORN_TREATMENT, "rate": CORN_TREATMENT_PER_ACRE,
                                   "from": "gal"}]},
         "rates": [{"sku_key": CORN_TREATMENT, "rate": 0.5, "measure": "dollars"}]},
        {"key": "in_furrow", "period_key": "incentive_period", "transaction_type": SALE,
         "conversion": {"coverage_unit": "acre",
                        "rates": [{"sku_key": IN_FURROW, "rate": IN_FURROW_PER_ACRE,
                                   "from": "lb"}]},
         "rates": [{"sku_key": IN_FURROW, "rate": 1.25, "measure": "dollars"}]},
    ]
    programs.append(program(
        "northfield", "local", "seed_treatment_pair_up", "Northfield Seed Treatment Pair-Up",
        periods,
        offers=[
            offer(pk, "soybean", "Soybean Seed + Shield Start", "pair_up", [SOY_TREATMENT],
                  [SALE], "stacked", "dollars_per_coverage_unit",
                  {"sku_sets": soy_sets,
                   "stacks": [{"key": "seed_and_seed_treatment",
                               "sku_set_keys": ["seed", "seed_treatment"]}]}),
            # A stack without a key: its generated key is
            # corn_seed_and_corn_seed_treatment_and_in_furrow.
            offer(pk, "corn", "Corn Seed + Root Armor + Furrow Force", "pair_up",
                  [CORN_TREATMENT, IN_FURROW], [SALE], "stacked", "dollars_per_coverage_unit",
                  {"sku_sets": corn_sets,
                   "stacks": [{"sku_set_keys": ["corn_seed", "corn_seed_treatment",
                                                "in_furrow"]}]}),
        ]))

    # -- prairie_chem national herbicide portfolio: brand count, share of wallet ---------------
    pk = program_key("prairie_chem", "national", "herbicide_portfolio")
    prairie = [KD_JUG, KD_BULK, PP_JUG, PP_BULK, CF_LB]
    all_herbicides = prairie + [HM_JUG, HM_BULK, CG_JUG]
    programs.append(program(
        "prairie_chem", "national", "herbicide_portfolio", "Prairie Chem Herbicide Portfolio",
        periods,
        qualifications=[
            qual("brand_count", "herbicide_brand_count", "Minimum Herbicide Brand Count",
                 "greater_than_or_equal_to", 2, filters=[filt(prairie)],
                 brand_keys=["clear_field_herbicide", "knock_down_herbicide",
                             "prairie_pass_herbicide"],
                 excluded_sku_keys=[KD_BULK]),
            qual("share_of_wallet_percent", "herbicide_share_of_wallet",
                 "Herbicide Share of Wallet", "greater_than_or_equal_to", 35.0,
                 **ratio(prairie, all_herbicides)),
        ],
        qualifier="herbicide_brand_count AND herbicide_share_of_wallet",
        offers=[
            offer(pk, "base", "Portfolio Rebate", "base", prairie, [PURCHASE], "standard",
                  "percent_of_amount",
                  [std_incentive({s: 4.0 for s in prairie}, "percent", "Full Season Incentive")]),
            # Tiers deliberately listed out of threshold order.
            offer(pk, "prairie_pass_volume", "Prairie Pass Volume Bonus", "volume",
                  [PP_JUG, PP_BULK], [PURCHASE], "stepped", "dollars_per_unit",
                  {"filters": [filt([PP_JUG, PP_BULK])],
                   "threshold_definition": {"type": "aggregated_quantity",
                                            "filters": [filt([PP_JUG, PP_BULK])]},
                   "rates": [
                       {"key": "tier_2", "threshold": 1000.0, "value": 1.5, "measure": "dollars"},
                       {"key": "tier_1", "threshold": 400.0, "value": 0.75, "measure": "dollars"},
                       {"key": "tier_3", "threshold": 2000.0, "value": 2.25, "measure": "dollars"},
                   ]}),
        ]))

    return sorted(programs, key=lambda p: p["key"])


# --------------------------------------------------------------------------------------------
# Side tables
# --------------------------------------------------------------------------------------------


def make_properties(rng: random.Random, retailers: list[Retailer]) -> list[dict[str, str]]:
    """business_plan_achieved_percent (request) and is_sustainability_certified (entity)."""
    rows = [{"level": "request", "entity_id": "", "transaction_id": "",
             "key": "business_plan_achieved_percent", "value": "80"}]
    ids = [r.entity_id for r in retailers]
    without_plan = set(rng.sample(ids, 3))  # these fall back to the default row
    for entity_id in ids:
        if entity_id not in without_plan:
            value = rng.choice([rng.randrange(60, 121), round(rng.uniform(60, 120), 1)])
            rows.append({"level": "request", "entity_id": entity_id, "transaction_id": "",
                         "key": "business_plan_achieved_percent", "value": f"{value:g}"})
    certified = rng.sample(ids, 12)
    for i, entity_id in enumerate(certified):
        rows.append({"level": "entity", "entity_id": entity_id, "transaction_id": "",
                     "key": "is_sustainability_certified",
                     "value": "true" if i < 7 else "false"})
    return sorted(rows, key=lambda p: (p["level"], p["entity_id"], p["key"]))


def make_waivers(retailers: list[Retailer], properties: list[dict[str, str]]
                 ) -> list[dict[str, str]]:
    """Two waivers that change the outcome.

    Program level: agri_shield's minimum purchases for the smallest retailer that achieved its
    business plan (so the rest of the qualifier, ``yoy_growth OR business_plan``, holds).
    Offer level: harvest_max's volume growth for the biggest retailer (see pin_traits).
    """
    plan = {p["entity_id"]: float(p["value"]) for p in properties
            if p["level"] == "request" and p["entity_id"]}
    smallest = min((r for r in retailers if plan.get(r.entity_id, 0) >= 85),
                   key=lambda r: r.scale).entity_id
    biggest = max(retailers, key=lambda r: r.scale).entity_id
    loyalty = program_key("harvest_max", "national", "loyalty")
    rows = [
        {"program_key": program_key("agri_shield", "national", "crop_protection"),
         "qualification_key": "min_purchases", "offer_key": "", "entity_id": smallest},
        {"program_key": loyalty, "qualification_key": "herbicide_volume_growth",
         "offer_key": f"{loyalty}.growth", "entity_id": biggest},
    ]
    return sorted(rows, key=lambda w: tuple(w.values()))


def make_prices() -> list[dict[str, str]]:
    """Program (redemption) prices; AS_JUG has a prior-season price and two overlapping ones."""
    rows = [
        {"sku_key": AS_JUG, "price": "47.00", "start_date": "2024-09-01",
         "end_date": "2025-08-31"},
        {"sku_key": AS_JUG, "price": "50.00", "start_date": "2025-09-01",
         "end_date": "2026-08-31"},
        # Mid-season price increase, overlapping the season price: the later start wins.
        {"sku_key": AS_JUG, "price": "52.00", "start_date": "2026-03-01", "end_date": ""},
        {"sku_key": HM_BULK, "price": "24.75", "start_date": "2025-09-01", "end_date": ""},
        {"sku_key": SOY_TREATMENT, "price": "470.00", "start_date": "", "end_date": ""},
    ]
    return sorted(rows, key=lambda p: (p["sku_key"], p["start_date"], p["end_date"]))


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


def write_csv(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    """A CSV with a header row and ``\\n`` line endings."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main() -> None:
    """Generate every example file."""
    rng = random.Random(SEED)
    retailers = make_retailers(rng)
    transactions = make_transactions(rng, retailers)
    programs = make_programs()

    with (HERE / "programs.json").open("w", encoding="utf-8", newline="\n") as f:
        json.dump({"programs": programs}, f, indent=2)
        f.write("\n")
    write_csv(DATA / "transactions.csv",
              ["transaction_id", "entity_id", "transaction_type", "transaction_date", "sku_key",
               "quantity", "uom_key", "amount"], transactions)
    write_csv(DATA / "products.csv", ["sku_key", "brand_key"],
              [{"sku_key": s.sku_key, "brand_key": s.brand_key}
               for s in sorted(SKUS, key=lambda s: s.sku_key) if s.in_catalogue])
    properties = make_properties(rng, retailers)
    write_csv(DATA / "properties.csv", ["level", "entity_id", "transaction_id", "key", "value"],
              properties)
    write_csv(DATA / "waivers.csv", ["program_key", "qualification_key", "offer_key",
                                     "entity_id"], make_waivers(retailers, properties))
    write_csv(DATA / "prices.csv", ["sku_key", "price", "start_date", "end_date"],
              make_prices())
    print(f"wrote {len(programs)} programs and {len(transactions)} transactions to {HERE}")


if __name__ == "__main__":
    main()
