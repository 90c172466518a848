"""Input data validation: every problem that stops a calculation, located by file, row and column.

Each check is a small registered function that returns row checks: an SQL predicate over one
loaded raw table that holds for the problem rows, with the column, message and expectation to
report. `validate_inputs` counts every predicate of a table in one scan (a duplicate check, whose
predicate needs the whole table, runs by itself), fetches a few located example rows only for the
checks that found something, and raises one DataError listing every problem. Problems
that do not stop a calculation (unknown SKUs, uom mismatches, names that match nothing) are warnings
computed by the dbt model `run_warnings` instead.

The predicates follow the column types of the loaded table: CSV columns are text and get every
check; a Parquet column already typed as a number or a date cannot hold text that is "not a number"
or "not a date", so only what can still fail is checked (empty values; a number too large for the
staged type).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ..errors import DataError, Issue, show
from ..program.models import TRANSACTION_TYPES

EXAMPLES_PER_CHECK = 5
NUMBER = "decimal(18,4)"  # the staged type of quantity, amount and price (macro type_input_number)
_INTEGER_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT",
                  "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT"}
_DECIMAL_TYPE = re.compile(r"^DECIMAL\((\d+),(\d+)\)$")


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


def _kind(column_type: str) -> str:
    """How a loaded column is checked: `text` (CSV, Parquet strings), `number` (an integer or a
    decimal whose text the staging cast to NUMBER reads exactly as the value: scale at most 4),
    `date`, or `other` (any other type: checked through its text, as a CSV value would be)."""
    if column_type == "VARCHAR":
        return "text"
    if column_type == "DATE":
        return "date"
    decimal = _DECIMAL_TYPE.match(column_type)
    if column_type in _INTEGER_TYPES or (decimal is not None and int(decimal.group(2)) <= 4):
        return "number"
    return "other"


@dataclass(frozen=True)
class Table:
    """A loaded raw table: where it came from and the SQL that reads its columns for the checks."""

    source: Source
    types: dict[str, str]  # column -> DuckDB type of the loaded column
    # DuckDB's trim removes, of the ASCII characters, only the space (see _trim_strips_only_space)
    cheap_trim: bool = True

    @property
    def name(self) -> str:
        return self.source.table

    def kind(self, column: str) -> str:
        return _kind(self.types.get(column, "VARCHAR"))

    def text(self, column: str) -> str:
        """SQL: the value as trimmed text, NULL when empty: `nullif(trim(cast(c as varchar)), '')`.

        For a text column only the values that may begin or end with a character trim removes (an
        ASCII space or any non-ASCII character) are trimmed, as trim leaves the others unchanged:
        trimming ten million unique ids costs more than all the other checks of their scan."""
        c = f'"{column}"'
        kind = self.kind(column)
        if kind in ("number", "date"):  # their text is never empty nor padded
            return f"cast({c} as varchar)"
        if kind == "text" and self.cheap_trim:
            may_trim = f"{c} = '' or {c} like ' %' or {c} like '% ' or strlen({c}) <> length({c})"
            return f"(case when {may_trim} then nullif(trim({c}), '') else {c} end)"
        return f"nullif(trim(cast({c} as varchar)), '')"

    def empty(self, column: str) -> str:
        """SQL: the value is missing or blank."""
        if self.kind(column) in ("number", "date"):
            return f'"{column}" is null'
        return f"{self.text(column)} is null"

    def as_date(self, column: str) -> str:
        """SQL: the value as a date, NULL when empty or not a date."""
        if self.kind(column) == "date":
            return f'"{column}"'
        return f"try_cast({self.text(column)} as date)"

    def rows(self, predicate: str, column: str, message: str, expected: str, value_sql: str | None = None,
             apart: bool = False) -> RowCheck:
        """A row check on this table (see RowCheck)."""
        return RowCheck(self, column, predicate, message, expected, value_sql, apart)


@dataclass(frozen=True)
class RowCheck:
    """The rows of `table` where `predicate` holds are problems: reported as a few examples located
    by row and column (with `value_sql`, default the column's text), then how many more there are.

    `apart`: a predicate with a subquery over the whole table (duplicates) is not counted in the
    table's one scan but by the query that finds its examples (which costs little more than
    counting it: with no match its subquery is empty and the scan stops at once)."""

    table: Table
    column: str
    predicate: str
    message: str
    expected: str
    value_sql: str | None = None
    apart: bool = False


Tables = dict[str, Table]
Check = Callable[[Tables], list[RowCheck]]
CHECKS: list[Check] = []


def check(fn: Check) -> Check:
    """Register a data check."""
    CHECKS.append(fn)
    return fn


def _required(tables: Tables, table: str, columns: tuple[str, ...]) -> list[RowCheck]:
    if table not in tables:
        return []
    t = tables[table]
    return [t.rows(t.empty(c), c, "empty value", "a non-empty value") for c in columns]


def _numbers(tables: Tables, table: str, columns: tuple[str, ...]) -> list[RowCheck]:
    if table not in tables:
        return []
    t = tables[table]
    out: list[RowCheck] = []
    for column in columns:
        if t.kind(column) == "number":  # a number already: only its size can fail the staging cast
            predicate = f'"{column}" is not null and try_cast("{column}" as {NUMBER}) is null'
        else:
            predicate = f"{t.text(column)} is not null and try_cast({t.text(column)} as {NUMBER}) is null"
        out.append(t.rows(predicate, column, "not a number", "a decimal number with at most 14 digits before the point"))
    return out


def _dates(tables: Tables, table: str, columns: tuple[str, ...]) -> list[RowCheck]:
    if table not in tables:
        return []
    t = tables[table]
    return [t.rows(f"{t.text(c)} is not null and try_cast({t.text(c)} as date) is null", c, "not a date",
                   "an ISO date like 2026-03-01")
            for c in columns if t.kind(c) != "date"]  # a date column holds dates


def _repeated(t: Table, expression: str) -> str:
    """SQL: the non-null values of `expression` over `t` that occur more than once (once per repeat).

    Sorting and comparing each value with the one before it costs DuckDB about half of grouping
    millions of distinct values."""
    return (f"select v from (select v, lag(v) over (order by v) as previous"
            f" from (select {expression} as v from raw.{t.name})) where v = previous")


@check
def _transactions(tables: Tables) -> list[RowCheck]:
    t = tables["transactions"]
    out = _required(tables, "transactions",
                    ("transaction_id", "entity_id", "transaction_type", "transaction_date", "sku_key",
                     "quantity", "amount"))
    out += _numbers(tables, "transactions", ("quantity", "amount"))
    out += _dates(tables, "transactions", ("transaction_date",))
    types = ", ".join(f"'{name}'" for name in TRANSACTION_TYPES)
    out.append(t.rows(f"{t.text('transaction_type')} is not null and {t.text('transaction_type')} not in ({types})",
                      "transaction_type", "unknown transaction type", "one of " + ", ".join(TRANSACTION_TYPES)))
    repeated = _repeated(t, t.text("transaction_id"))
    out.append(t.rows(f"{t.text('transaction_id')} in ({repeated})", "transaction_id", "duplicate transaction_id",
                      "each transaction_id once", apart=True))
    return out


@check
def _products(tables: Tables) -> list[RowCheck]:
    t = tables["products"]
    out = _required(tables, "products", ("sku_key",))
    two_brands = (f"select {t.text('sku_key')} from raw.products group by 1"
                  f" having count(distinct {t.text('brand_key')}) > 1")
    out.append(t.rows(f"{t.text('sku_key')} in ({two_brands})", "sku_key", "SKU listed with different brands",
                      "one brand_key per SKU", apart=True))
    return out


@check
def _properties(tables: Tables) -> list[RowCheck]:
    if "properties" not in tables:
        return []
    t = tables["properties"]
    level = f"lower({t.text('level')})"
    out = _required(tables, "properties", ("level", "key"))
    out.append(t.rows(f"{level} is not null and {level} not in ('request', 'entity', 'transaction')",
                      "level", "unknown property level", "request, entity or transaction"))
    out.append(t.rows(f"{level} = 'entity' and {t.empty('entity_id')}", "entity_id",
                      "an entity-level property needs an entity_id", "a non-empty entity_id"))
    out.append(t.rows(f"{level} = 'transaction' and {t.empty('transaction_id')}", "transaction_id",
                      "a transaction-level property needs a transaction_id", "a non-empty transaction_id"))
    return out


@check
def _waivers(tables: Tables) -> list[RowCheck]:
    return _required(tables, "waivers", ("program_key", "qualification_key"))


@check
def _prices(tables: Tables) -> list[RowCheck]:
    if "prices" not in tables:
        return []
    t = tables["prices"]
    out = _required(tables, "prices", ("sku_key", "price"))
    out += _numbers(tables, "prices", ("price",))
    out += _dates(tables, "prices", ("start_date", "end_date"))
    out.append(t.rows(f"{t.as_date('end_date')} < {t.as_date('start_date')}", "end_date",
                      "price period ends before it starts", "end_date on or after start_date",
                      value_sql="cast(\"start_date\" as varchar) || ' .. ' || cast(\"end_date\" as varchar)"))
    return out


@check
def _enrollments(tables: Tables) -> list[RowCheck]:
    return _required(tables, "enrollments", ("entity_id", "program_key"))


def _trim_strips_only_space(con: Any) -> bool:
    """Whether trim removes, of the ASCII characters, only the space (DuckDB's trim removes Unicode
    space separators) — what Table.text relies on to skip trimming most values."""
    stripped = con.execute("select list(i order by i) from range(1, 128) r(i) where trim(chr(i::integer)) = ''").fetchone()[0]
    return list(stripped or []) == [32]


def describe(con: Any, sources: dict[str, Source]) -> Tables:
    """The loaded raw tables of `sources`, with their column types."""
    types: dict[str, dict[str, str]] = {}
    for table, column, data_type in con.execute(
            "select table_name, column_name, data_type from duckdb_columns()"
            " where database_name = current_database() and schema_name = 'raw'").fetchall():
        types.setdefault(table, {})[column] = data_type
    cheap_trim = _trim_strips_only_space(con)
    return {name: Table(source, types.get(name, {}), cheap_trim) for name, source in sources.items()}


def _counts(con: Any, checks: list[RowCheck]) -> list[int | None]:
    """How many rows each check's predicate holds for, in one scan per table (None: checked apart)."""
    counts: list[int | None] = [None] * len(checks)
    by_table: dict[str, list[int]] = {}
    for i, c in enumerate(checks):
        if not c.apart:
            by_table.setdefault(c.table.name, []).append(i)
    for table, indexes in by_table.items():
        select = ", ".join(f"count_if({checks[i].predicate})" for i in indexes)
        for i, n in zip(indexes, con.execute(f"select {select} from raw.{table}").fetchone()):
            counts[i] = int(n or 0)  # count_if of no rows is NULL
    return counts


def _issues(con: Any, c: RowCheck, count: int | None) -> list[Issue]:
    """Issues for the `count` rows of a check (None: not counted yet): a few examples, then a count."""
    if count == 0:
        return []
    value_sql = c.value_sql or f'cast("{c.column}" as varchar)'
    total_sql = "count(*) over ()" if count is None else str(count)
    rows = con.execute(
        f"select _row, {value_sql}, {total_sql} from raw.{c.table.name} where {c.predicate}"
        f" order by _row limit {EXAMPLES_PER_CHECK}").fetchall()
    if not rows:
        return []
    source = c.table.source
    issues = [Issue(source.where(r, c.column), c.message, show(v), c.expected) for r, v, _ in rows]
    total = int(rows[0][2])
    if total > EXAMPLES_PER_CHECK:
        issues.append(Issue(f"{source.path.name} column {c.column}",
                            f"{c.message}: {total - EXAMPLES_PER_CHECK} more rows like the ones above", None,
                            c.expected))
    return issues


# raw.rejected_rows: the input rows left out by validate_inputs(skip_invalid=True), one row per
# problem (a row with two problems has two); empty otherwise
REJECTED_ROWS_DDL = """create or replace table raw.rejected_rows (
    table_name varchar, file varchar, file_row bigint, file_line bigint, column_name varchar,
    bad_value varchar, problem varchar, expected varchar, message varchar)"""


def _sql_text(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _reject(con: Any, c: RowCheck) -> None:
    """Copy the rows of a check into raw.rejected_rows, each with its located message (as
    Issue.render gives it: where, problem, the value quoted, what was expected)."""
    source = c.table.source
    value_sql = c.value_sql or f'cast("{c.column}" as varchar)'
    csv = source.path.suffix == ".csv"
    where = f"{_sql_text(source.path.name + ' row ')} || _row"
    if csv:
        where += " || ' (line ' || (_row + 1) || ')'"
    where += f" || {_sql_text(' column ' + c.column)}"
    got = "coalesce('; got ''' || v || '''', '')"
    con.execute(
        f"insert into raw.rejected_rows select {_sql_text(c.table.name)}, {_sql_text(source.path.name)}, _row,"
        f" {'_row + 1' if csv else 'null'}, {_sql_text(c.column)}, v, {_sql_text(c.message)}, {_sql_text(c.expected)},"
        f" {where} || {_sql_text(': ' + c.message)} || {got} || {_sql_text('; expected ' + c.expected)}"
        f" from (select *, {value_sql} as v from raw.{c.table.name} where {c.predicate})")


def validate_inputs(con: Any, sources: dict[str, Source], skip_invalid: bool = False) -> int:
    """Run every data check on the raw tables; raise one DataError listing every problem.

    `skip_invalid`: the rows with problems are moved out of their tables into raw.rejected_rows
    instead (always created, empty when nothing was left out); returns how many problems it
    holds. Every check runs on the tables as loaded, before any row is left out."""
    con.execute(REJECTED_ROWS_DDL)
    tables = describe(con, sources)
    checks = [c for fn in CHECKS for c in fn(tables)]
    issues: list[Issue] = []
    found: list[RowCheck] = []
    for c, count in zip(checks, _counts(con, checks)):
        check_issues = _issues(con, c, count)
        issues += check_issues
        if check_issues:
            found.append(c)
    if issues and not skip_invalid:
        raise DataError("The input data has problems; nothing was built", issues)
    for c in found:
        _reject(con, c)
    for table in sorted({c.table.name for c in found}):
        con.execute(f"delete from raw.{table} where _row in"
                    f" (select file_row from raw.rejected_rows where table_name = {_sql_text(table)})")
    return int(con.execute("select count(*) from raw.rejected_rows").fetchone()[0])
