"""Input data validation: every problem that stops a calculation, located by file, row and column.

Each check is a small registered function that returns issues; `validate_inputs` runs them all on
the loaded raw tables and raises one DataError listing every problem. Problems that do not stop a
calculation (unknown SKUs, uom mismatches, names that match nothing) are warnings computed by the
dbt model `run_warnings` instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from .errors import DataError, Issue, show
from .models import TRANSACTION_TYPES

EXAMPLES_PER_CHECK = 5
NUMBER = "decimal(18,4)"


@dataclass(frozen=True)
class Source:
    """Where a raw table came from, to locate rows for a person."""

    table: str
    path: Path

    def where(self, row: int, column: str | None = None) -> str:
        # `row` counts data rows from 1; in a CSV file the header is line 1
        locator = f"{self.path.name} row {row}"
        if self.path.suffix == ".csv":
            locator += f" (line {row + 1})"
        return locator + (f" column {column}" if column else "")


Check = Callable[[Any, dict[str, Source]], list[Issue]]
CHECKS: list[Check] = []


def check(fn: Check) -> Check:
    """Register a data check."""
    CHECKS.append(fn)
    return fn


def _text(column: str) -> str:
    return f'nullif(trim(cast("{column}" as varchar)), \'\')'


def _rows(con: Any, source: Source, predicate: str, column: str, message: str, expected: str,
          value_sql: str | None = None) -> list[Issue]:
    """Issues for the rows of `source` where `predicate` holds (a few examples, then a count)."""
    value_sql = value_sql or f'cast("{column}" as varchar)'
    rows = con.execute(
        f"select _row, {value_sql} from raw.{source.table} where {predicate} order by _row limit {EXAMPLES_PER_CHECK + 1}"
    ).fetchall()
    if not rows:
        return []
    issues = [Issue(source.where(r, column), message, show(v), expected) for r, v in rows[:EXAMPLES_PER_CHECK]]
    if len(rows) > EXAMPLES_PER_CHECK:
        total = con.execute(f"select count(*) from raw.{source.table} where {predicate}").fetchone()[0]
        issues.append(Issue(f"{source.path.name} column {column}",
                            f"{message}: {total - EXAMPLES_PER_CHECK} more rows like the ones above", None, expected))
    return issues


def _required(con: Any, sources: dict[str, Source], table: str, columns: tuple[str, ...]) -> list[Issue]:
    if table not in sources:
        return []
    out: list[Issue] = []
    for column in columns:
        out += _rows(con, sources[table], f"{_text(column)} is null", column, "empty value", "a non-empty value")
    return out


def _numbers(con: Any, sources: dict[str, Source], table: str, columns: tuple[str, ...]) -> list[Issue]:
    if table not in sources:
        return []
    out: list[Issue] = []
    for column in columns:
        out += _rows(con, sources[table],
                     f"{_text(column)} is not null and try_cast({_text(column)} as {NUMBER}) is null",
                     column, "not a number", "a decimal number with at most 14 digits before the point")
    return out


def _dates(con: Any, sources: dict[str, Source], table: str, columns: tuple[str, ...]) -> list[Issue]:
    if table not in sources:
        return []
    out: list[Issue] = []
    for column in columns:
        out += _rows(con, sources[table],
                     f"{_text(column)} is not null and try_cast({_text(column)} as date) is null",
                     column, "not a date", "an ISO date like 2026-03-01")
    return out


@check
def _transactions(con: Any, sources: dict[str, Source]) -> list[Issue]:
    out = _required(con, sources, "transactions",
                     ("transaction_id", "entity_id", "transaction_type", "transaction_date", "sku_key",
                      "quantity", "amount"))
    out += _numbers(con, sources, "transactions", ("quantity", "amount"))
    out += _dates(con, sources, "transactions", ("transaction_date",))
    types = ", ".join(f"'{t}'" for t in TRANSACTION_TYPES)
    out += _rows(con, sources["transactions"],
                 f"{_text('transaction_type')} is not null and {_text('transaction_type')} not in ({types})",
                 "transaction_type", "unknown transaction type", "one of " + ", ".join(TRANSACTION_TYPES))
    out += _rows(con, sources["transactions"],
                 f"{_text('transaction_id')} in (select {_text('transaction_id')} from raw.transactions"
                 f" group by 1 having count(*) > 1)",
                 "transaction_id", "duplicate transaction_id", "each transaction_id once")
    return out


@check
def _products(con: Any, sources: dict[str, Source]) -> list[Issue]:
    out = _required(con, sources, "products", ("sku_key",))
    out += _rows(con, sources["products"],
                 f"{_text('sku_key')} in (select {_text('sku_key')} from raw.products group by 1"
                 f" having count(distinct {_text('brand_key')}) > 1)",
                 "sku_key", "SKU listed with different brands", "one brand_key per SKU")
    return out


@check
def _properties(con: Any, sources: dict[str, Source]) -> list[Issue]:
    if "properties" not in sources:
        return []
    src = sources["properties"]
    level = f"lower({_text('level')})"
    out = _required(con, sources, "properties", ("level", "key"))
    out += _rows(con, src, f"{level} is not null and {level} not in ('request', 'entity', 'transaction')",
                 "level", "unknown property level", "request, entity or transaction")
    out += _rows(con, src, f"{level} = 'entity' and {_text('entity_id')} is null", "entity_id",
                 "an entity-level property needs an entity_id", "a non-empty entity_id")
    out += _rows(con, src, f"{level} = 'transaction' and {_text('transaction_id')} is null", "transaction_id",
                 "a transaction-level property needs a transaction_id", "a non-empty transaction_id")
    return out


@check
def _waivers(con: Any, sources: dict[str, Source]) -> list[Issue]:
    return _required(con, sources, "waivers", ("program_key", "qualification_key"))


@check
def _prices(con: Any, sources: dict[str, Source]) -> list[Issue]:
    if "prices" not in sources:
        return []
    out = _required(con, sources, "prices", ("sku_key", "price"))
    out += _numbers(con, sources, "prices", ("price",))
    out += _dates(con, sources, "prices", ("start_date", "end_date"))
    start, end = (f"try_cast({_text(c)} as date)" for c in ("start_date", "end_date"))
    out += _rows(con, sources["prices"], f"{end} < {start}", "end_date", "price period ends before it starts",
                 "end_date on or after start_date",
                 value_sql="cast(\"start_date\" as varchar) || ' .. ' || cast(\"end_date\" as varchar)")
    return out


@check
def _enrollments(con: Any, sources: dict[str, Source]) -> list[Issue]:
    return _required(con, sources, "enrollments", ("entity_id", "program_key"))


def validate_inputs(con: Any, sources: dict[str, Source]) -> None:
    """Run every data check on the raw tables; raise one DataError listing every problem."""
    issues: list[Issue] = []
    for fn in CHECKS:
        issues += fn(con, sources)
    if issues:
        raise DataError("The input data has problems; nothing was built", issues)
