"""Vendor statements: the vendor's calculation responses, read, checked and loaded as the tables
`statement_earnings` and `statement_qualifications` (docs/reconciliation.md).

A statement is one participant's response in the API's shape (reference/strategies.txt,
reference/qualifications.txt): `{"qualification_results": [...], "potential_earnings": [...]}`.
They come as a folder of `<entity_id>.json` files (what `incentives export` writes; the file name
is the participant, URL-escaped as export escapes it) or as one JSON-lines file (`.jsonl`), one
response per line with `entity_id` beside the two arrays.

Every problem is reported at once, located by file (and line), JSON path, the bad value and what
was expected. With `skip_invalid` a statement with a problem is left out whole (its participant is
then not compared, rather than compared on part of its lines), and each of its problems becomes a
row of `rejected_rows`.

The tables are loaded as text (as the CSV inputs are) with `_row` and `_source` (the file and the
JSON path of the line); the staging models under models/staging/incentives_statements/ cast them.
"""

from __future__ import annotations

import csv
import json
import tempfile
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import unquote

from .errors import DataError, Issue, show
from .run.sql import sql_string

EARNING_TEXT = ("offer_key", "offer_calculator", "sku_key", "incentive_rate_key", "incentive_rate_measure",
                "transaction_id", "provided_uom_key")
EARNING_NUMBERS = ("incentive_rate_value", "offer_sku_pay_rate", "provided_quantity", "provided_amount",
                   "incentivized_quantity", "incentivized_amount", "incentive_amount",
                   "incentive_contribution_percent", "incentive_effective_rate")
# the columns of statement_earnings, in the order of the API's response (entity_id first)
EARNING_COLUMNS = ("entity_id", "offer_key", "offer_calculator", "sku_key", "incentive_rate_key",
                   "incentive_rate_measure", "incentive_rate_value", "offer_sku_pay_rate", "transaction_id",
                   "provided_quantity", "provided_uom_key", "provided_amount", "incentivized_quantity",
                   "incentivized_amount", "incentive_amount", "incentive_contribution_percent",
                   "incentive_effective_rate")
EARNING_REQUIRED = ("offer_key", "incentive_rate_key", "transaction_id", "incentive_amount")

QUALIFICATION_TEXT = ("offer_key", "qualification_key", "operator")
QUALIFICATION_NUMBERS = ("target", "actual", "difference")
QUALIFICATION_BOOLEANS = ("met", "waived")
QUALIFICATION_COLUMNS = ("entity_id", "offer_key", "qualification_key", "qualification_level", "met", "waived",
                         "target", "operator", "actual", "difference")
QUALIFICATION_REQUIRED = ("offer_key", "qualification_key", "met")

TABLES = {"statement_earnings": EARNING_COLUMNS, "statement_qualifications": QUALIFICATION_COLUMNS}
# the table_name of a statement's problems in rejected_rows: a whole statement's, or a line's
STATEMENT_TABLES = ("statements", *TABLES)
ARRAYS = {"potential_earnings": "statement_earnings", "qualification_results": "statement_qualifications"}

# a decimal(38,10) holds 28 digits before the point
LARGEST = Decimal(10) ** 28


@dataclass
class Statement:
    """One participant's statement, read: its rows per table and its problems."""

    entity_id: str
    source: str  # the file, or the file and line of a JSON-lines statement
    rows: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: {t: [] for t in TABLES})
    issues: list[Issue] = field(default_factory=list)
    problem_tables: list[str] = field(default_factory=list)  # the table of each issue

    def problem(self, path: str, message: str, value: Any, expected: str, table: str = "statements") -> None:
        where = f"{self.source} at {path}" if path else self.source
        self.issues.append(Issue(where, message, None if value is _ABSENT else show(value), expected,
                                 severity="error"))
        self.problem_tables.append(table)


_ABSENT = object()


@dataclass
class Statements:
    """The statements read from a folder or a JSON-lines file."""

    kept: list[Statement]
    rejected: list[Statement]

    @property
    def issues(self) -> list[Issue]:
        return [i for s in self.rejected for i in s.issues]

    def count(self, table: str) -> int:
        return sum(len(s.rows[table]) for s in self.kept)


def _number(st: Statement, path: str, value: Any, table: str) -> str | None:
    """A JSON number, or a string holding one (the API writes targets and actuals as strings), as
    plain decimal text; None for null."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Decimal, str)):
        st.problem(path, "wrong type", value, "a number", table)
        return None
    try:
        number = Decimal(value.strip()) if isinstance(value, str) else Decimal(value)
    except InvalidOperation:
        st.problem(path, "not a number", value, "a number", table)
        return None
    if not number.is_finite() or abs(number) >= LARGEST:
        st.problem(path, "not a number" if not number.is_finite() else "number too large", value,
                   "a finite number with at most 28 digits before the point", table)
        return None
    return format(number, "f")


def _text(st: Statement, path: str, value: Any, table: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        st.problem(path, "wrong type", value, "a text value (JSON string)", table)
        return None
    return value


def _boolean(st: Statement, path: str, value: Any, table: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, bool):
        st.problem(path, "wrong type", value, "true or false", table)
        return None
    return "true" if value else "false"


def _entry(st: Statement, path: str, entry: Any, table: str, required: tuple[str, ...],
           kinds: dict[str, Any]) -> dict[str, Any] | None:
    """One element of an array, checked: its values as text (None for null or absent)."""
    if not isinstance(entry, dict):
        st.problem(path, "wrong type", entry, "an object", table)
        return None
    row: dict[str, Any] = {"entity_id": st.entity_id, "_source": f"{st.source} {path}"}
    for name, read in kinds.items():
        value = entry.get(name)
        if name in required and (value is None or (isinstance(value, str) and not value.strip())):
            st.problem(f"{path}.{name}", "missing field" if name not in entry else "empty value",
                       _ABSENT if name not in entry else value, f"a value for {name}", table)
            continue
        row[name] = read(st, f"{path}.{name}", value, table)
    return row


EARNING_KINDS = {**{n: _text for n in EARNING_TEXT}, **{n: _number for n in EARNING_NUMBERS}}
QUALIFICATION_KINDS = {**{n: _text for n in QUALIFICATION_TEXT}, **{n: _number for n in QUALIFICATION_NUMBERS},
                       **{n: _boolean for n in QUALIFICATION_BOOLEANS}}


def _read_response(st: Statement, response: Any) -> None:
    """The two arrays of a response, checked, into st.rows."""
    if not isinstance(response, dict):
        st.problem("", "wrong type", response, "a JSON object with qualification_results and potential_earnings")
        return
    if "qualification_results" not in response and "potential_earnings" not in response:
        st.problem("", "missing field", _ABSENT, "qualification_results and potential_earnings arrays")
        return
    for array, table in ARRAYS.items():
        entries = response.get(array, [])
        if entries is None:
            entries = []
        if not isinstance(entries, list):
            st.problem(array, "wrong type", entries, "an array", table)
            continue
        required, kinds = ((EARNING_REQUIRED, EARNING_KINDS) if table == "statement_earnings"
                           else (QUALIFICATION_REQUIRED, QUALIFICATION_KINDS))
        for i, entry in enumerate(entries):
            row = _entry(st, f"{array}[{i}]", entry, table, required, kinds)
            if row is not None:
                st.rows[table].append(row)
    _check_keys(st)


def _check_keys(st: Statement) -> None:
    """An earning listed twice (same offer, rate key and transaction) is a problem; a qualification
    key listed twice for one offer is its program-level and its offer-level qualification, in
    that order (the API lists program qualifications first); more than twice is a problem."""
    seen: dict[tuple[Any, ...], str] = {}
    for row in st.rows["statement_earnings"]:
        key = (row.get("offer_key"), row.get("incentive_rate_key"), row.get("transaction_id"))
        if None in key:
            continue
        if key in seen:
            path = row["_source"].rsplit(" ", 1)[1]
            st.problem(path, "duplicate earning (same offer_key, incentive_rate_key and transaction_id)",
                       "/".join(key), f"each earning once (first at {seen[key]})", "statement_earnings")
        else:
            seen[key] = row["_source"].rsplit(" ", 1)[1]
    listed: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in st.rows["statement_qualifications"]:
        listed.setdefault((row.get("offer_key"), row.get("qualification_key")), []).append(row)
    for key, rows in listed.items():
        if len(rows) == 2:
            rows[0]["qualification_level"], rows[1]["qualification_level"] = "program", "offer"
        elif len(rows) > 2 and None not in key:
            path = rows[2]["_source"].rsplit(" ", 1)[1]
            st.problem(path, "qualification listed more than twice for one offer", "/".join(key),
                       "at most a program-level and an offer-level qualification of one key",
                       "statement_qualifications")


def _parse(text: str) -> Any:
    return json.loads(text, parse_float=Decimal)


def _files(path: Path) -> Iterator[Statement]:
    """The statements of a folder (`*.json`), of one `<entity_id>.json` file or of a JSON-lines
    file, read and checked."""
    if path.is_dir() or path.suffix == ".json":
        for file in sorted(path.glob("*.json")) if path.is_dir() else [path]:
            st = Statement(unquote(file.name[: -len(".json")]), file.name)
            try:
                response = _parse(file.read_text())
            except (OSError, UnicodeDecodeError) as exc:
                st.problem("", "file cannot be read", str(exc), "a readable UTF-8 JSON file")
            except ValueError as exc:
                st.problem("", "invalid JSON", str(exc), "a JSON object")
            else:
                _read_response(st, response)
            yield st
        return
    with open(path, encoding="utf-8", errors="strict") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            st = Statement("", f"{path.name} line {number}")
            try:
                response = _parse(line)
            except ValueError as exc:
                st.problem("", "invalid JSON", str(exc), "one JSON object per line")
                yield st
                continue
            if isinstance(response, dict):  # (not an object: _read_response says so)
                entity = response.get("entity_id")
                if isinstance(entity, str) and entity.strip():
                    st.entity_id = entity
                else:
                    st.problem("entity_id", "missing field" if "entity_id" not in response
                               else "empty value" if isinstance(entity, str) else "wrong type",
                               _ABSENT if "entity_id" not in response else entity, "the participant's entity_id (text)")
            _read_response(st, response)
            yield st


def read_statements(path: Path, skip_invalid: bool = False) -> Statements:
    """Read and check every statement of `path`; raise one DataError listing every problem (with
    `skip_invalid`: leave out the statements with problems, listed in `rejected`)."""
    if not path.exists():
        raise DataError("Statements cannot be read", [Issue(str(path), "not found", None,
                                                            "a folder of <entity_id>.json files or a .jsonl file")])
    try:
        statements = list(_files(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError("Statements cannot be read", [Issue(str(path), "file cannot be read", show(str(exc)),
                                                            "a UTF-8 JSON-lines file")]) from None
    if not statements:
        raise DataError("Statements cannot be read", [Issue(str(path), "no statements", None,
                                                            "<entity_id>.json files, or one response per line")])
    seen: dict[str, str] = {}
    for st in statements:
        if st.entity_id and st.entity_id in seen:
            st.problem("", "second statement of a participant", st.entity_id, f"one statement per participant "
                       f"(first: {seen[st.entity_id]})")
        seen.setdefault(st.entity_id, st.source)
    kept = [s for s in statements if not s.issues]
    rejected = [s for s in statements if s.issues]
    if rejected and not skip_invalid:
        raise DataError("The statements have problems; nothing was changed", [i for s in rejected for i in s.issues])
    return Statements(kept, rejected)


def load_statements(con: Any, statements: Statements, schema: str = "raw") -> dict[str, int]:
    """Create `schema.statement_earnings` and `schema.statement_qualifications` (every column text,
    with `_row` and `_source`) in a DuckDB connection from the kept statements: the row counts."""
    counts = {}
    with tempfile.TemporaryDirectory(prefix="incentives-statements-") as work:
        for table, columns in TABLES.items():
            path = Path(work) / f"{table}.csv"
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.writer(fh, lineterminator="\n")
                writer.writerow(("_row", "_source", *columns))
                number = 0
                for st in statements.kept:
                    for row in st.rows[table]:
                        number += 1
                        writer.writerow((number, row["_source"], *(row.get(c) for c in columns)))
            cols = ", ".join(f'"{c}" varchar' for c in ("_source", *columns))
            con.execute(f"create or replace table {schema}.{table} (_row bigint, {cols})")
            con.execute(f"insert into {schema}.{table} select * from read_csv({sql_string(str(path))}, "
                        "header = true, all_varchar = true, quote = '\"', escape = '\"')")
            counts[table] = number
    return counts


def rejected_rows(statements: Statements) -> list[tuple[Any, ...]]:
    """The problems of the statements left out, as rows of `rejected_rows` (table_name, file,
    file_row, file_line, column_name (the JSON path), bad_value, problem, expected, message)."""
    rows = []
    for st in statements.rejected:
        for issue, table in zip(st.issues, st.problem_tables):
            path = issue.where[len(st.source) + 4:] if issue.where != st.source else None
            rows.append((table, st.source, None, None, path, issue.value, issue.message, issue.expected,
                         issue.render()))
    return rows


def with_statements(con: Any, path: Path | None, skip_invalid: bool, load: Any) -> Any:
    """A run's load step with statements: `load()` (the inputs: (counts, sources)), then the
    statements of `path` (if any) read and loaded into `con`'s schema raw, their row counts added
    to the counts. The problems of both are reported together."""
    statements, problem = None, None
    if path is not None:
        try:
            statements = read_statements(path, skip_invalid)
        except DataError as exc:
            problem = exc
    try:
        counts, sources = load()
    except DataError as exc:
        if problem is not None:
            raise DataError(exc.title, exc.issues + problem.issues) from None
        raise
    if problem is not None:
        raise problem
    if statements is not None:
        counts.update(load_statements(con, statements))
        if statements.rejected:  # raw.rejected_rows: made by the inputs' validation
            con.executemany("insert into raw.rejected_rows values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            rejected_rows(statements))
    return counts, sources
