"""The contract floor: the least work that writes what the output contract promises.

The engine's output is a contract: `potential_earnings` one row per participant x offer x rate x
transaction with its 19 columns, `qualification_results` one row per participant x offer x
qualification, `offer_results` one row per participant x offer, each a table. The floor does the
same reads, joins and writes with nothing else: in one DuckDB connection (default threads), into a
database file, it

1. pairs the participants with the offers of the programs they are enrolled in (without an
   enrollments file: every participant with every program);
2. reads the transactions file in place, once, with the products file beside it, sums each
   qualification's filters per participant (numerator and denominator, each over its own period:
   a yoy index reads the prior season) and counts a brand_count's brands of positive net
   quantity (less its excluded SKUs, within its brand list), and writes one row per participant
   x offer x qualification with qualification_results' columns (a program-level qualification on
   every offer of its program; a property qualification reads the participant's property or the
   request's default): the ratio types' target is denominator x value / 100 (/ divisor),
   a yoy or average index with a denominator <= 0 is met, the operator is applied; an offer is
   qualified when all its rows are met (the qualifier read as an AND of them);
3. reads the transactions again, joins them to a (program, offer, SKU, rate) table of the same
   programs (with each rate's transaction type and period, as the engine filters them) and to the
   qualified pairs, and writes one row per transaction x offer with potential_earnings' 19 columns
   and types (the engine, too, writes earning rows for qualified offers only);
4. writes one row per participant x offer with offer_results' columns and the summed earnings.

It skips what the engine must also do: prices, returns, waivers, transaction-level properties,
qualifier expressions other than AND, tiers chosen by threshold,
stacked overlaps, the exact quotient, data tests, dbt. The rate of a stepped offer is its first
tier's, and it earns below that tier too; a stacked offer's rows are its sets' rates.

    from contract_floor import contract_floor
    figures = contract_floor(data_dir, programs_json, database_path)
"""

from __future__ import annotations

import csv
import json
import tempfile
import time
from pathlib import Path

from cputime import cpu_seconds

MONEY = "decimal(38,2)"
NUMBER = "decimal(38,10)"
INPUT = "decimal(18,4)"


def _programs(programs_path: Path) -> list[dict]:
    programs = json.loads(programs_path.read_text())
    return programs["programs"] if isinstance(programs, dict) else programs


def _periods(program: dict) -> dict[str, tuple[str, str]]:
    return {p["key"]: (p.get("start_date") or "", p.get("end_date") or "") for p in program.get("time_periods", [])}


def rate_rows(programs: list[dict]) -> list[tuple]:
    """(program, offer, calculator, strategy, sku, rate key, measure, rate, transaction type, start,
    end) for every earning SKU of every offer."""
    rows: set[tuple] = set()
    for p in programs:
        periods = _periods(p)
        for o in p.get("offers", []):
            head = (p["key"], o["key"], o.get("calculator_key") or "", o["strategy_key"])
            if o["strategy_key"] == "standard":
                for i, inc in enumerate(o.get("incentives") or []):
                    start, end = periods.get(inc.get("period_key"), ("", ""))
                    for r in inc.get("rates", []):
                        rows.add(head + (r["sku_key"], f"{i}:{r['sku_key']}", r.get("measure") or "",
                                         str(r.get("rate", r.get("value", 0))), inc.get("transaction_type") or "",
                                         start, end))
            elif o["strategy_key"] == "stepped":
                inc = o["incentive"]
                tiers = inc.get("rates") or [{}]
                tier = tiers[0]
                for f in inc.get("filters", []):
                    start, end = periods.get(f.get("period_key"), ("", ""))
                    for s in f.get("sku_keys") or []:
                        rows.add(head + (s, tier.get("key") or "tier", tier.get("measure") or "",
                                         str(tier.get("rate", tier.get("value", 0))), f.get("transaction_type") or "",
                                         start, end))
            elif o["strategy_key"] == "stacked":
                for ss in o["incentive"]["sku_sets"]:
                    start, end = periods.get(ss.get("period_key"), ("", ""))
                    rates = {r["sku_key"]: r for r in ss.get("rates", [])}
                    for c in ss["conversion"]["rates"]:
                        r = rates.get(c["sku_key"], {})
                        rows.add(head + (c["sku_key"], f"{ss['key']}:{c['sku_key']}", r.get("measure") or "dollars",
                                         str(r.get("rate", 0)), ss.get("transaction_type") or "", start, end))
    return sorted(rows)


def qualification_rows(programs: list[dict]) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """The qualifications (program, offer or '', key, level, type, operator, value, divisor, has a
    brand list, property key, property level), their filter SKUs (program, offer or '', key, role, sku, transaction type, start,
    end; role numerator, denominator or brand: a brand_count's SKUs less its excluded ones) and
    the brand lists of the brand counts (program, offer or '', key, brand)."""
    quals: set[tuple] = set()
    skus: set[tuple] = set()
    brands: set[tuple] = set()

    def add(p: dict, offer_key: str, q: dict, periods: dict) -> None:
        value = q.get("value")
        value = str(int(value)) if isinstance(value, bool) else str(value) if isinstance(value, (int, float)) else "0"
        divisor = (q.get("denominator") or {}).get("divisor") or 1
        prop = q.get("property") or {}
        quals.add((p["key"], offer_key, q["key"], "offer" if offer_key else "program", q["type"],
                   q.get("operator") or "", value, str(divisor), "true" if q.get("brand_keys") else "false",
                   prop.get("key") or "", prop.get("level") or ""))
        brands.update((p["key"], offer_key, q["key"], b) for b in q.get("brand_keys") or [])
        excluded = set(q.get("excluded_sku_keys") or [])
        parts = [("brand" if q["type"] == "brand_count" else "numerator", q)]
        parts += [(role, q[role]) for role in ("numerator", "denominator") if isinstance(q.get(role), dict)]
        for role, part in parts:
            for f in part.get("filters") or []:
                start, end = periods.get(f.get("period_key"), ("", ""))
                for s in f.get("sku_keys") or []:
                    if role != "brand" or s not in excluded:
                        skus.add((p["key"], offer_key, q["key"], role, s, f.get("transaction_type") or "", start, end))

    for p in programs:
        periods = _periods(p)
        for q in p.get("qualifications", []):
            add(p, "", q, periods)
        for o in p.get("offers", []):
            for q in o.get("qualifications", []):
                add(p, o["key"], q, periods)
    return sorted(quals), sorted(skus), sorted(brands)


def _write_csv(path: Path, header: list[str], rows: list[tuple]) -> None:
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


EARNINGS = f"""
create table potential_earnings as
select
    t.entity_id,
    r.program_key,
    r.offer_key,
    r.calculator as offer_calculator,
    r.strategy_key,
    t.sku_key,
    r.rate_key as incentive_rate_key,
    r.measure as incentive_rate_measure,
    r.rate as incentive_rate_value,
    r.rate as offer_sku_pay_rate,
    t.transaction_id,
    cast(t.quantity as {INPUT}) as provided_quantity,
    t.uom_key as provided_uom_key,
    cast(t.amount as {INPUT}) as provided_amount,
    cast(t.quantity as {NUMBER}) as incentivized_quantity,
    cast(t.amount as {MONEY}) as incentivized_amount,
    cast(case when r.measure = 'percent' then cast(t.amount as {INPUT}) * r.rate / 100
              else cast(t.quantity as {INPUT}) * r.rate end as {MONEY}) as incentive_amount,
    cast(100 as {NUMBER}) as incentive_contribution_percent,
    case when r.measure = 'percent' then r.rate end as incentive_effective_rate,
    'floor' as run_id
from read_parquet('{{transactions}}') as t
inner join rates as r
    on r.sku_key = t.sku_key
   and r.transaction_type = t.transaction_type
   and t.transaction_date between r.start_date and r.end_date
inner join offer_status as o
    on o.entity_id = t.entity_id and o.program_key = r.program_key and o.offer_key = r.offer_key
   and o.qualified
"""

PAIRS = """
create table pairs as
with enrolled as (
    {enrolled}
)
select distinct e.entity_id, r.program_key, r.offer_key
from enrolled as e
inner join (select distinct program_key, offer_key from rates) as r on r.program_key = e.program_key
"""

QUALIFICATIONS = f"""
create table qualification_results as
with matched as (
    -- one pass over the transactions: each qualification's sums per participant, and a
    -- brand_count's net quantity per brand
    select t.entity_id, s.program_key, s.offer_key, s.qualification_key,
           case when s.role = 'brand' then p.brand_key end as brand_key,
           sum(case when s.role = 'numerator' then cast(t.amount as {INPUT}) end) as numerator_amount,
           sum(case when s.role = 'numerator' then cast(t.quantity as {INPUT}) end) as numerator_quantity,
           sum(case when s.role = 'denominator' then cast(t.amount as {INPUT}) end) as denominator_amount,
           sum(case when s.role = 'denominator' then cast(t.quantity as {INPUT}) end) as denominator_quantity,
           sum(case when s.role = 'brand' then cast(t.quantity as {INPUT}) end) as brand_quantity
    from read_parquet('{{transactions}}') as t
    inner join qualification_skus as s
        on s.sku_key = t.sku_key
       and s.transaction_type = t.transaction_type
       and t.transaction_date between s.start_date and s.end_date
    left join read_parquet('{{products}}') as p on p.sku_key = t.sku_key
    group by all
),
sums as (
    select m.entity_id, m.program_key, m.offer_key, m.qualification_key,
           sum(m.numerator_amount) as numerator_amount, sum(m.numerator_quantity) as numerator_quantity,
           sum(m.denominator_amount) as denominator_amount, sum(m.denominator_quantity) as denominator_quantity,
           count(*) filter (where m.brand_quantity > 0 and m.brand_key is not null
                            and (not q.has_brand_list or b.brand_key is not null)) as brands
    from matched as m
    inner join qualifications as q using (program_key, offer_key, qualification_key)
    left join qualification_brands as b using (program_key, offer_key, qualification_key, brand_key)
    group by all
),
measured as (
    select p.entity_id, p.program_key, p.offer_key, q.qualification_key, q.level as qualification_level,
           q.type as qualification_type, q.operator,
           -- ratio types: target = denominator x value / 100 (/ divisor), actual = the numerator
           case when q.type like '%index%' or q.type = 'share_of_wallet_percent'
                then coalesce(case when q.type like '%quantity%' then s.denominator_quantity
                                   else s.denominator_amount end, 0) end as denominator,
           cast(case when q.type like '%index%' or q.type = 'share_of_wallet_percent'
                     then coalesce(case when q.type like '%quantity%' then s.denominator_quantity
                                        else s.denominator_amount end, 0) * q.value / (100 * q.divisor)
                     else q.value end as {NUMBER}) as target,
           cast(case when q.type = 'property'
                     then cast(case lower(coalesce(pe.value, pd.value)) when 'true' then '1' when 'false' then '0'
                               else coalesce(pe.value, pd.value) end as {NUMBER})
                     when q.type = 'brand_count' then coalesce(s.brands, 0)
                     when q.type like '%quantity%' then coalesce(s.numerator_quantity, 0)
                     else coalesce(s.numerator_amount, 0) end as {NUMBER}) as actual
    from pairs as p
    inner join qualifications as q
        on q.program_key = p.program_key and (q.offer_key = '' or q.offer_key = p.offer_key)
    left join sums as s
        on s.entity_id = p.entity_id and s.program_key = q.program_key and s.offer_key = q.offer_key
       and s.qualification_key = q.qualification_key
    -- a property: the participant's own value, else the request's default
    left join ({{properties}}) as pe
        on q.type = 'property' and pe.level = q.property_level and pe.key = q.property_key
       and pe.entity_id = p.entity_id
    left join ({{properties}}) as pd
        on q.type = 'property' and q.property_level = 'request' and pd.level = 'request'
       and pd.key = q.property_key and pd.entity_id is null
)
select entity_id, program_key, offer_key, qualification_key, qualification_level, qualification_type,
       operator, target, actual, cast(actual - target as {NUMBER}) as difference,
       coalesce(case when qualification_type like '%index%' and denominator <= 0 then true
                     when operator = 'greater_than' then actual > target
                     when operator = 'less_than_or_equal_to' then actual <= target
                     when operator = 'less_than' then actual < target
                     when operator = 'equal_to' then actual = target
                     else actual >= target end, false) as met,
       false as waived, 'floor' as run_id
from measured
"""

STATUS = """
create temp table offer_status as
select p.entity_id, p.program_key, p.offer_key, coalesce(bool_and(q.met), true) as qualified
from pairs as p
left join qualification_results as q using (entity_id, program_key, offer_key)
group by all
"""

OFFERS = f"""
create table offer_results as
with earned as (
    select entity_id, program_key, offer_key, sum(incentive_amount) as incentive_amount
    from potential_earnings
    group by all
)
select p.entity_id, p.program_key, p.offer_key,
       p.qualified as program_qualified, p.qualified as offer_qualified, p.qualified,
       cast(coalesce(e.incentive_amount, 0) as {MONEY}) as incentive_amount,
       cast(null as {NUMBER}) as threshold_value, cast(null as varchar) as current_tier_key,
       cast(null as varchar) as next_tier_key, cast(null as {NUMBER}) as next_tier_threshold,
       cast(null as {NUMBER}) as next_tier_rate, cast(null as {NUMBER}) as gap_to_next_tier,
       cast(null as {NUMBER}) as stacked_overlap, 'floor' as run_id
from offer_status as p
left join earned as e using (entity_id, program_key, offer_key)
"""


def contract_floor(data: Path, programs_path: Path, database: Path, repeats: int = 1) -> dict:
    """Time the contract floor over `repeats` fresh database files; the median seconds and CPU
    seconds, every timing, and the rows written per table."""
    import duckdb

    programs = _programs(programs_path)
    rates = rate_rows(programs)
    quals, qual_skus, qual_brands = qualification_rows(programs)
    transactions = data / "transactions.parquet"
    products = data / "products.parquet"
    if (data / "properties.parquet").exists():
        properties = (f"select level, entity_id, key, value from read_parquet('{data / 'properties.parquet'}') "
                      "where transaction_id is null")
    else:
        properties = "select null::varchar as level, null::varchar as entity_id, null::varchar as key, null::varchar as value where false"
    enrollments = data / "enrollments.parquet"
    if enrollments.exists():
        enrolled = f"select distinct entity_id, program_key from read_parquet('{enrollments}')"
    else:
        enrolled = (f"select distinct t.entity_id, p.program_key from read_parquet('{transactions}') as t "
                    "cross join (select distinct program_key from rates) as p")
    timings, cpus, rows = [], [], {}
    with tempfile.TemporaryDirectory(dir=database.parent) as tmp:
        tmp = Path(tmp)
        _write_csv(tmp / "rates.csv", ["program_key", "offer_key", "calculator", "strategy_key", "sku_key", "rate_key",
                                      "measure", "rate", "transaction_type", "start_date", "end_date"], rates)
        _write_csv(tmp / "qualifications.csv", ["program_key", "offer_key", "qualification_key", "level", "type",
                                               "operator", "value", "divisor", "has_brand_list", "property_key",
                                               "property_level"], quals)
        _write_csv(tmp / "qualification_skus.csv", ["program_key", "offer_key", "qualification_key", "role", "sku_key",
                                                   "transaction_type", "start_date", "end_date"], qual_skus)
        _write_csv(tmp / "qualification_brands.csv", ["program_key", "offer_key", "qualification_key", "brand_key"],
                   qual_brands)
        for _ in range(max(1, repeats)):
            for p in (database, Path(str(database) + ".wal")):
                if p.exists():
                    p.unlink()
            con = duckdb.connect(str(database))
            for name in ("rates", "qualifications", "qualification_skus", "qualification_brands"):
                con.execute(f"create table {name}_text as select * from read_csv('{tmp / (name + '.csv')}', "
                            "header = true, all_varchar = true)")
                columns = [r[0] for r in con.execute(f"describe {name}_text").fetchall()]
                # typed once, outside the timing: dates as dates (open ends as far dates), numbers
                # as decimals, empty text as ''
                typed = []
                for c in columns:
                    if c in ("start_date", "end_date"):
                        typed.append(f"coalesce(cast(nullif({c}, '') as date), date '{'0001-01-01' if c == 'start_date' else '9999-12-31'}') as {c}")
                    elif c in ("rate", "value", "divisor"):
                        typed.append(f"cast(coalesce(nullif({c}, ''), '0') as {NUMBER}) as {c}")
                    elif c == "has_brand_list":
                        typed.append(f"cast({c} as boolean) as {c}")
                    else:
                        typed.append(f"coalesce({c}, '') as {c}")
                con.execute(f"create table {name} as select {', '.join(typed)} from {name}_text")
                con.execute(f"drop table {name}_text")
            con.execute("checkpoint")
            con.close()
            con = duckdb.connect(str(database))  # fresh connection, default settings (threads = all cores)
            started, cpu_started = time.perf_counter(), cpu_seconds()
            con.execute(PAIRS.format(enrolled=enrolled))
            con.execute(QUALIFICATIONS.format(transactions=transactions, products=products, properties=properties))
            con.execute(STATUS)
            con.execute(EARNINGS.format(transactions=transactions))
            con.execute(OFFERS)
            con.execute("checkpoint")
            timings.append(time.perf_counter() - started)
            cpus.append(cpu_seconds() - cpu_started)
            rows = {t: con.execute(f"select count(*) from {t}").fetchone()[0]
                    for t in ("qualification_results", "potential_earnings", "offer_results")}
            con.close()
        for p in (database, Path(str(database) + ".wal")):
            if p.exists():
                p.unlink()
    return {"seconds": sorted(timings)[len(timings) // 2], "cpu": sorted(cpus)[len(cpus) // 2],
            "timings": timings, "rows": rows}


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", type=Path, help="a generated data folder (bench/data/...), with programs.json")
    ap.add_argument("--database", type=Path, default=Path("bench/out/contract_floor.duckdb"))
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    args.database.parent.mkdir(parents=True, exist_ok=True)
    figures = contract_floor(args.data / "data", args.data / "programs.json", args.database, args.repeats)
    print(f"contract floor {figures['seconds']:.2f}s (CPU {figures['cpu']:.1f}s; "
          f"{', '.join(f'{t:.2f}' for t in figures['timings'])}), rows written: "
          + ", ".join(f"{k} {v:,}" for k, v in figures["rows"].items()))
