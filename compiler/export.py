"""`incentives export`: one JSON file per participant in the calculations-response shape of the
API reference (`qualification_results` and `potential_earnings` arrays, the reference's field
names; targets, actuals and differences as strings, money and rates as numbers).

The three result tables of a DuckDB file are read in participant order, each through its own
cursor in batches, and merged: memory stays constant whatever the number of participants.
"""

from __future__ import annotations

import json
import sys
import time
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, Callable, Iterator, Optional
from urllib.parse import quote

from .errors import IncentivesError
from .numbers import number_text

BATCH = 2000

# The reference's field names, in its order.
QUALIFICATION_FIELDS = ("offer_key", "qualification_key", "met", "waived", "target", "operator", "actual",
                        "difference")
EARNING_FIELDS = ("offer_key", "offer_calculator", "sku_key", "incentive_rate_key", "incentive_rate_measure",
                  "incentive_rate_value", "offer_sku_pay_rate", "transaction_id", "provided_quantity",
                  "provided_uom_key", "provided_amount", "incentivized_quantity", "incentivized_amount",
                  "incentive_amount", "incentive_contribution_percent", "incentive_effective_rate")
TEXT_NUMBERS = {"target", "actual", "difference"}
EFFECTIVE_RATE_PLACES = Decimal("0.001")  # the reference prints 813.56 / 4700 as 0.173


def text_number(value: Optional[Decimal]) -> Optional[str]:
    """A decimal as the reference writes targets and actuals: "100000", "-7000", "1.5"."""
    return None if value is None else number_text(Decimal(value))


def json_number(value: Any) -> Any:
    """A decimal as a JSON number the way the reference prints it (3.0, 0.03, 813.56)."""
    if isinstance(value, Decimal):
        return float(value)
    return value


def qualification_entry(row: dict[str, Any]) -> dict[str, Any]:
    return {f: (text_number(row[f]) if f in TEXT_NUMBERS else row[f]) for f in QUALIFICATION_FIELDS}


def earning_entry(row: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    for f in EARNING_FIELDS:
        value = row[f]
        if f == "incentive_contribution_percent" and row["strategy_key"] != "stacked":
            continue  # the reference reports the contribution on stacked earnings only
        if f == "incentive_effective_rate" and value is not None:
            value = Decimal(value).quantize(EFFECTIVE_RATE_PLACES, rounding=ROUND_HALF_UP)
        entry[f] = json_number(value)
    return entry


def file_name(entity_id: str) -> str:
    """The participant's file name: its id with anything but letters, digits and -._~ escaped as
    in a URL (a leading dot too, so no name is hidden or '..')."""
    name = quote(entity_id, safe="")
    return ("%2E" + name[1:] if name.startswith(".") else name) + ".json"


def _rows(con: Any, sql: str, params: list[Any]) -> Iterator[dict[str, Any]]:
    cur = con.cursor()
    cur.execute(sql, params)
    names = [d[0] for d in cur.description]
    while True:
        batch = cur.fetchmany(BATCH)
        if not batch:
            break
        for values in batch:
            yield dict(zip(names, values))
    cur.close()


RESULTS = ("qualification_results", "potential_earnings", "offer_results")


def open_results(database: Path, tables: tuple[str, ...] = RESULTS) -> Any:
    """A read-only connection to the DuckDB file of `incentives run`, with `tables` in main; a
    located error when the file or a table is missing."""
    import duckdb

    if not database.is_file():
        raise IncentivesError(f"{database}: no such DuckDB file (run `incentives run --database {database}` first)")
    try:
        con = duckdb.connect(str(database), read_only=True)
    except duckdb.Error as exc:
        raise IncentivesError(f"{database}: cannot open it as a DuckDB database ({exc})") from None
    found = {r[0] for r in con.execute(
        "select table_name from information_schema.tables where table_schema = 'main'").fetchall()}
    missing = [t for t in tables if t not in found]
    if missing:
        con.close()
        raise IncentivesError(f"{database}: no table {', '.join('main.' + t for t in missing)}; "
                              "expected the results of `incentives run`")
    return con


def export(database: Path, out: Path, entity: Optional[str] = None,
           say: Callable[[str], None] = lambda m: print(m, file=sys.stderr)) -> int:
    """Write OUT/<entity_id>.json for every participant (or only `entity`); returns the count."""
    con = open_results(database)
    try:
        where, params = ("where entity_id = ?", [entity]) if entity is not None else ("", [])
        (total,) = con.execute(f"select count(distinct entity_id) from main.offer_results {where}", params).fetchone()
        if entity is not None and total == 0:
            raise IncentivesError(f"{database}: no participant {entity!r} in offer_results")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise IncentivesError(f"cannot create {out}: {exc.strerror}") from None
        participants = _rows(con, f"select distinct entity_id from main.offer_results {where} order by entity_id",
                             params)
        qualifications = _rows(con, f"""
            select * from main.qualification_results {where}
            order by entity_id, offer_key, case qualification_level when 'program' then 0 else 1 end,
                qualification_key""", params)
        earnings = _rows(con, f"""
            select * from main.potential_earnings {where}
            order by entity_id, offer_key, incentive_rate_key, transaction_id""", params)
        pending = {"q": next(qualifications, None), "e": next(earnings, None)}

        def take(kind: str, rows: Iterator[dict[str, Any]], entity_id: str) -> Iterator[dict[str, Any]]:
            # rows of other participants before this one cannot exist (every table is ordered by
            # entity_id and every participant is in offer_results), so only equal ids are taken
            while pending[kind] is not None and pending[kind]["entity_id"] == entity_id:
                yield pending[kind]
                pending[kind] = next(rows, None)

        written, started, shown = 0, time.monotonic(), 0.0
        for participant in participants:
            entity_id = participant["entity_id"]
            response = {
                "qualification_results": [qualification_entry(r) for r in take("q", qualifications, entity_id)],
                "potential_earnings": [earning_entry(r) for r in take("e", earnings, entity_id)],
            }
            path = out / file_name(entity_id)
            try:
                path.write_text(json.dumps(response, indent=2) + "\n")
            except OSError as exc:
                raise IncentivesError(f"cannot write {path}: {exc.strerror}") from None
            written += 1
            now = time.monotonic()
            if now - shown >= 1.0 or written == total:
                say(f"exported {written:,} / {total:,} participants ({now - started:.1f}s)")
                shown = now
        return written
    finally:
        con.close()
