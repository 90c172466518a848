"""What a run records and reports: its id and inputs' hashes (the `runs` table), the rejection
tables, the phases' timings and the summary printed at the end."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..compile.programs import RejectedProgram
from .sql import sql_string

RESULT_TABLES = ("qualification_results", "potential_earnings", "offer_results")
# the tables a run carries over from the previous results into its new ones before the build (dbt's
# incremental models append to them; docs/forecast.md), like `runs`
HISTORY_TABLES = ("offer_results_history",)

SHOWN_REJECTIONS = 20  # problems of left-out programs and rows listed in the summary (all are in the tables)

RUN_CONTEXT = "run_context"


# the forecast's dates (`--as-of`, `--forecast-until`): columns of run_context, not dbt vars, so that
# a run with other dates reuses dbt's saved parse (models/intermediate/forecast/)
FORECAST_DATES = {"incentives_as_of": "as_of", "incentives_forecast_until": "forecast_until"}


def run_context_sql(run_id: str, schema: str = "raw", forecast: dict[str, Any] | None = None) -> str:
    """DuckDB SQL creating `schema.run_context`: one row, the run id the result rows carry and the
    forecast's dates of FORECAST_DATES given in `forecast` (the forecast's vars; null when not given)."""
    given = forecast or {}
    dates = ", ".join(f"cast({sql_string(str(given[var])) if given.get(var) else 'null'} as date) as {column}"
                      for var, column in FORECAST_DATES.items())
    return (f"create or replace table {schema}.{RUN_CONTEXT} as select cast({sql_string(run_id)} as varchar) as run_id,"
            f" {dates}")


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes (read in chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class RunInputs:
    """What a run evaluated: the SHA-256 of the programs file and of each input file (each file
    is read once, for the run id and the runs table)."""

    programs_sha256: str
    inputs_sha256: dict[str, str]

    @classmethod
    def of(cls, programs: Path, inputs: dict[str, Path]) -> "RunInputs":
        return cls(file_sha256(programs), {name: file_sha256(path) for name, path in sorted(inputs.items())})

    def run_id(self, started_at: dt.datetime) -> str:
        """`<UTC start>-<8 hex of the inputs' hashes>`: sortable, and names what was evaluated."""
        digest = hashlib.sha256(self.programs_sha256.encode())
        for name, sha in self.inputs_sha256.items():
            digest.update(f"{name}:{sha}".encode())
        return f"{started_at:%Y%m%dT%H%M%SZ}-{digest.hexdigest()[:8]}"

    def runs_row(self, run_id: str, started_at: dt.datetime, row_counts: dict[str, int],
                 threads: int) -> tuple[Any, ...]:
        """This run's row of the `runs` table (RUNS_COLUMNS), finished now."""
        from .. import __version__

        return (run_id, started_at.replace(tzinfo=None),
                dt.datetime.now(dt.timezone.utc).replace(microsecond=0, tzinfo=None), __version__,
                self.programs_sha256, json.dumps(self.inputs_sha256, sort_keys=True),
                json.dumps(row_counts, sort_keys=True), threads)


# The columns of the table `runs` (one row per run, kept across runs): name, type
RUNS_COLUMNS = (("run_id", "string"), ("started_at", "timestamp"), ("finished_at", "timestamp"),
                ("project_version", "string"), ("programs_sha256", "string"), ("inputs_sha256", "string"),
                ("row_counts", "string"), ("threads", "integer"))

# The rejection tables every `incentives run` leaves next to its results (empty unless asked for
# with --skip-invalid-programs / --skip-invalid-rows): staged in the input schema, then copied
# into the results with the run id. Column (name, integer?) pairs.
REJECTED_TABLES: dict[str, tuple[tuple[str, bool], ...]] = {
    "rejected_programs": (("program_index", True), ("program_key", False), ("json_path", False), ("problem", False),
                          ("bad_value", False), ("expected", False), ("message", False)),
    "rejected_rows": (("table_name", False), ("file", False), ("file_row", True), ("file_line", True),
                      ("column_name", False), ("bad_value", False), ("problem", False), ("expected", False),
                      ("message", False)),
}


def rejected_table_ddl(name: str, schema: str) -> str:
    """DuckDB: create (or replace) the staged rejection table `schema.name`, empty."""
    cols = ", ".join(f"{c} {'bigint' if integer else 'varchar'}" for c, integer in REJECTED_TABLES[name])
    return f"create or replace table {schema}.{name} ({cols})"


def stage_rejected_programs(con: Any, rejected: list[RejectedProgram], schema: str = "raw") -> None:
    """DuckDB: `schema.rejected_programs`, the problems of the programs left out (raw.rejected_rows
    is written by validate_inputs)."""
    con.execute(rejected_table_ddl("rejected_programs", schema))
    if rejected:
        con.executemany(f"insert into {schema}.rejected_programs values ({', '.join(['?'] * 7)})",
                        [list(r.row()) for r in rejected])


def rejected_tables_sql(schema: str, input_schema: str, spark: bool = False) -> list[str]:
    """SQL (DuckDB, PostgreSQL, Spark) creating `schema`'s rejection tables from the staged ones in
    `input_schema`, each row with the run id of `input_schema.run_context`."""
    out = []
    for name, columns in REJECTED_TABLES.items():
        select = ", ".join(f"cast(r.{c} as bigint) as {c}" if integer else f"r.{c}" for c, integer in columns)
        out.append(f"create table {schema}.{name} {'using parquet ' if spark else ''}as select c.run_id, {select}"
                   f" from {input_schema}.{name} r cross join {input_schema}.{RUN_CONTEXT} c")
    return out


@dataclass
class Summary:
    participants: int
    programs: int
    offers: int
    offers_qualified: int
    total: str
    by_strategy: list[tuple[str, int, int, str, int]]
    warnings: list[tuple[str, int, str]] = field(default_factory=list)
    phases: dict[str, float] = field(default_factory=dict)
    rejected_programs: list[tuple[int, str]] = field(default_factory=list)  # (program index, message)
    rejected_rows: int = 0
    rejected_row_messages: list[str] = field(default_factory=list)  # the first ones

    @property
    def rejections(self) -> bool:
        """Whether programs or input rows were left out (exit code 3)."""
        return bool(self.rejected_programs or self.rejected_rows)

    def render(self) -> str:
        lines = [
            "Summary",
            f"  participants         {self.participants:>12,}",
            f"  programs             {self.programs:>12,}",
            f"  offers               {self.offers:>12,}",
            f"  offers qualified     {self.offers_qualified:>12,}  (participant x offer)",
            f"  potential earnings   {self.total:>12}",
        ]
        for strategy, offers, qualified, amount, rows in self.by_strategy:
            lines.append(f"    {strategy:<18} {amount:>12}  ({offers} offers, {qualified:,} qualified, {rows:,} earning rows)")
        if self.warnings:
            lines.append(f"  warnings             {sum(n for _, n, _ in self.warnings):>12,}  (table run_warnings)")
            for check_name, n, example in self.warnings:
                lines.append(f"    {check_name:<36} {n:>6,} rows, e.g. {example}")
        if self.rejected_programs:
            programs = len({index for index, _ in self.rejected_programs})
            lines.append(f"  rejected programs    {programs:>12,}  (left out; table rejected_programs)")
            lines += [f"    {message}" for _, message in self.rejected_programs[:SHOWN_REJECTIONS]]
            if len(self.rejected_programs) > SHOWN_REJECTIONS:
                lines.append(f"    ... {len(self.rejected_programs) - SHOWN_REJECTIONS:,} more problems in table rejected_programs")
        if self.rejected_rows:
            lines.append(f"  rejected rows        {self.rejected_rows:>12,}  (left out; table rejected_rows)")
            lines += [f"    {message}" for message in self.rejected_row_messages]
            if self.rejected_rows > len(self.rejected_row_messages):
                lines.append(f"    ... {self.rejected_rows - len(self.rejected_row_messages):,} more in table rejected_rows")
        if self.phases:
            lines.append("  timings              " + ", ".join(f"{k} {v:.2f}s" for k, v in self.phases.items()))
        return "\n".join(lines)


def summarize_with(fetch: Callable[[str], list[Any]], schema: str = "main",
                   internal_schema: str = "main_internal") -> Summary:
    """Figures of the results in `schema` of any engine; `fetch(sql)` returns the rows."""
    ((participants, programs, offers, qualified),) = fetch(
        "select count(distinct entity_id), count(distinct program_key), count(distinct offer_key),"
        f" count(*) filter (where qualified) from {schema}.offer_results")
    total = fetch(f"select coalesce(sum(incentive_amount), 0) from {schema}.offer_results")[0][0]
    by_strategy = fetch(
        "with offers as (select r.strategy_key, o.offer_key, o.qualified, o.incentive_amount"
        f"  from {schema}.offer_results o join {internal_schema}.stg_incentives__rules_offers r on r.offer_key = o.offer_key),"
        f" earning as (select strategy_key, count(*) as earning_rows from {schema}.potential_earnings group by strategy_key)"
        " select offers.strategy_key, count(distinct offer_key), count(*) filter (where qualified),"
        " sum(incentive_amount), coalesce(max(earning.earning_rows), 0)"
        " from offers left join earning on earning.strategy_key = offers.strategy_key"
        " group by offers.strategy_key order by offers.strategy_key")
    warnings = fetch(
        "select check_name, sum(row_count), min(table_name || ' ' || column_name || ' = ' || coalesce(bad_value, ''))"
        f" from {schema}.run_warnings group by check_name order by check_name")
    summary = Summary(participants, programs, offers, qualified, f"{total:,.2f}",
                      [(s, o, q, f"{a:,.2f}", n) for s, o, q, a, n in by_strategy],
                      [(c, int(n), e) for c, n, e in warnings])
    summary.rejected_programs = [(int(index), message) for index, message in fetch(
        f"select program_index, message from {schema}.rejected_programs order by program_index, json_path")]
    summary.rejected_rows = int(fetch(f"select count(*) from {schema}.rejected_rows")[0][0])
    if summary.rejected_rows:
        summary.rejected_row_messages = [m for (m,) in fetch(
            f"select message from {schema}.rejected_rows order by table_name, file_row, column_name"
            f" limit {SHOWN_REJECTIONS}")]
    return summary
