"""`incentives import-statements` and `incentives reconcile` (docs/reconciliation.md).

import-statements reads the vendor's statements (compiler/statements.py) into a DuckDB results
file of `incentives run` and builds the reconciliation marts there, atomically: under the run lock
of the file, the file is copied into `<database>.building/`, the statements are loaded into the
copy and dbt builds only the reconciliation's nodes on it (they read the engine's own rows, which
stay as they are), and the copy is renamed over the file. A failure leaves the file unchanged,
and readers keep the results they have open.

reconcile prints the summary of the reconciliation marts and writes the lines that differ as a
CSV to send with a claim.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import sys
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable

from .errors import IncentivesError, RunError
from .export import open_results
from .run.build import RECONCILIATION_PATHS, run_dbt, run_vars
from .run.locks import duckdb_lock
from .run.progress import Say
from .statements import STATEMENT_TABLES, load_statements, read_statements, rejected_rows
from .targets.duckdb import _remove_building, building_file

RECONCILIATION_TABLES = ("reconciliation_earnings", "reconciliation_qualifications", "reconciliation_offers")


def _stderr(message: str) -> None:
    print(message, file=sys.stderr)


@dataclass
class Imported:
    """What import-statements loaded: rows per table, and the statements left out."""

    counts: dict[str, int]
    participants: int
    rejected: list[str] = field(default_factory=list)  # the problems' messages


def import_statements(database: Path, path: Path, skip_invalid: bool = False, wait: float | None = None,
                      say: Say = _stderr, threads: int = 1) -> Imported:
    """Load the statements of `path` into the results file `database` and build the reconciliation
    marts there (replacing the statements imported before). Every problem of the statements is
    reported at once and nothing is changed; with `skip_invalid` the statements with problems are
    left out (rows of rejected_rows) and the others imported."""
    database = database.resolve()
    open_results(database).close()  # a located error when it is not a results file
    statements = read_statements(path, skip_invalid)
    with duckdb_lock(database).acquire(wait) as lock:
        if lock.previous_owner:
            say(f"Taking over the lock of an ended run ({lock.previous_owner}); removing what it left")
        building = building_file(database)
        _remove_building(building)
        building.parent.mkdir()
        try:
            shutil.copyfile(database, building)
            counts = _load(building, statements)
            say(f"Loaded {len(statements.kept):,} statements: " + ", ".join(f"{t} {n:,}" for t, n in counts.items()))
            say("Building the reconciliation (dbt build)")
            args = ["build", "--vars", json.dumps(run_vars(False, statements=True)), "--select", *RECONCILIATION_PATHS,
                    "--exclude", "test_type:data,path:models/staging", "tag:model_key"]
            run_dbt(args, building, say, threads)
            os.replace(building, database)
        finally:
            _remove_building(building)
    return Imported(counts, len(statements.kept), [row[-1] for row in rejected_rows(statements)])


def _load(building: Path, statements: Any) -> dict[str, int]:
    """The statements into raw of the copy, and their problems into main.rejected_rows (those of an
    earlier import replaced), in one transaction."""
    import duckdb

    con = duckdb.connect(str(building))
    try:
        con.execute("begin")
        counts = load_statements(con, statements)
        tables = ", ".join(f"'{t}'" for t in STATEMENT_TABLES)
        con.execute(f"delete from main.rejected_rows where table_name in ({tables})")
        rows = rejected_rows(statements)
        if rows:
            con.executemany("insert into main.rejected_rows select (select max(run_id) from raw.run_context),"
                            " ?, ?, ?, ?, ?, ?, ?, ?, ?", rows)
        con.execute("commit")
        con.execute("checkpoint")
    except duckdb.Error as exc:
        raise RunError(f"{building}: cannot load the statements ({exc}); the results are unchanged") from None
    finally:
        con.close()
    return counts


# ----------------------------------------------------------------------------- reconcile

CLAIM_COLUMNS = ("entity_id", "program_key", "offer_key", "transaction_id", "incentive_rate_key",
                 "statement_incentive_rate_key", "sku_key", "status", "differing_column", "engine_incentive_amount",
                 "statement_incentive_amount", "incentive_amount_difference", "explanation")

SHOWN_OFFERS = 10


def _money(value: Any) -> str:
    return f"{Decimal(value or 0):,.2f}"


def reconcile(database: Path, out: Path | None = None, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Print the reconciliation's summary and write the lines that differ to `out` (CSV): the
    figures as a dict."""
    con = open_results(database, ("offer_results",))
    try:
        if not has_reconciliation(con):
            raise IncentivesError(f"{database}: no statements reconciled yet; load them first with "
                                  f"`incentives import-statements DIR --database {database}` "
                                  "(or `incentives run ... --statements DIR`)")
        figures = _figures(con)
        lines = _summary_lines(con, figures)
        if out is not None:
            figures["claim_lines"] = _write_claims(con, out)
            lines.append(f"  claim lines          {figures['claim_lines']:>12,}  written to {out}")
    finally:
        con.close()
    for line in lines:
        say(line)
    return figures


def _figures(con: Any) -> dict[str, Any]:
    (participants, offers, agree, under, over, unknown_participants, unknown_offers) = con.execute("""
        select count(distinct entity_id), count(*), count(*) filter (where agrees),
            coalesce(sum(variance) filter (where variance > 0), 0),
            coalesce(-sum(variance) filter (where variance < 0), 0),
            count(distinct entity_id) filter (where not participant_known),
            count(*) filter (where participant_known and not offer_known)
        from main.reconciliation_offers""").fetchone()
    statuses = dict(con.execute("select status, count(*) from main.reconciliation_earnings group by status").fetchall())
    qualifications = con.execute(
        "select count(*), count(*) filter (where not agrees) from main.reconciliation_qualifications").fetchone()
    not_in_statements = con.execute("""
        select count(distinct entity_id) from main.offer_results
        where entity_id not in (select entity_id from main.reconciliation_offers)""").fetchone()[0]
    return {"participants": participants, "offers": offers, "offers_agreeing": agree, "underpaid": under,
            "overpaid": over, "unknown_participants": unknown_participants, "unknown_offers": unknown_offers,
            "lines": statuses, "qualifications": qualifications[0], "qualifications_differing": qualifications[1],
            "participants_without_statement": not_in_statements}


def _summary_lines(con: Any, f: dict[str, Any]) -> list[str]:
    lines = ["Reconciliation (engine - statement)",
             f"  participants compared {f['participants']:>11,}"
             + (f"  ({f['unknown_participants']:,} unknown to the engine)" if f["unknown_participants"] else "")
             + (f"; {f['participants_without_statement']:,} of the engine's have no statement"
                if f["participants_without_statement"] else ""),
             f"  offers compared      {f['offers']:>12,}  (participant x offer"
             + (f"; {f['unknown_offers']:,} unknown to the engine" if f["unknown_offers"] else "") + ")",
             f"  offers agreeing      {f['offers_agreeing']:>12,}",
             f"  underpaid            {_money(f['underpaid']):>12}  (the statement pays less than the engine)",
             f"  overpaid             {_money(f['overpaid']):>12}  (the statement pays more than the engine)"]
    lines.append("  earning lines        " + ", ".join(
        f"{status} {f['lines'].get(status, 0):,}"
        for status in ("matched", "amount_differs", "missing_in_statement", "missing_in_engine")))
    lines.append(f"  qualifications       {f['qualifications']:>12,}  ({f['qualifications_differing']:,} differ)")
    differing = con.execute(f"""
        select entity_id, offer_key, variance, explanation from main.reconciliation_offers
        where not agrees order by abs(variance) desc, entity_id, offer_key limit {SHOWN_OFFERS}""").fetchall()
    if differing:
        lines.append("  offers that differ (largest variance first)")
        lines += [f"    {entity} {offer}: {_money(variance)} - {explanation}"
                  for entity, offer, variance, explanation in differing]
        rest = f["offers"] - f["offers_agreeing"] - len(differing)
        if rest > 0:
            lines.append(f"    ... {rest:,} more in table reconciliation_offers")
    return lines


def _write_claims(con: Any, out: Path) -> int:
    """The earning lines that differ, with their offer's explanation, as CSV: how many."""
    cursor = con.execute(f"""
        select {', '.join('e.' + c for c in CLAIM_COLUMNS[:-1])}, o.explanation
        from main.reconciliation_earnings e
        left join main.reconciliation_offers o on o.entity_id = e.entity_id and o.offer_key = e.offer_key
        where e.status <> 'matched'
        order by e.entity_id, e.offer_key, e.transaction_id, e.incentive_rate_key""")
    written = 0
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with open(out, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(CLAIM_COLUMNS)
            while batch := cursor.fetchmany(2000):
                writer.writerows(batch)
                written += len(batch)
    except OSError as exc:
        raise IncentivesError(f"cannot write {out}: {exc.strerror}") from None
    return written


# ----------------------------------------------------------------------------- the report's section

SECTION_OFFERS = 100  # offers that differ listed in the HTML report


def has_reconciliation(con: Any) -> bool:
    """Whether the results in `con` hold the reconciliation tables (statements were imported)."""
    found = {r[0] for r in con.execute(
        "select table_name from information_schema.tables where table_schema = 'main'").fetchall()}
    return set(RECONCILIATION_TABLES) <= found


def report_section(con: Any) -> str:
    """The HTML report's reconciliation section (compiler/report.py): empty without statements."""
    import html

    if not has_reconciliation(con):
        return ""
    f = _figures(con)
    e = lambda x: html.escape("" if x is None else str(x))  # noqa: E731
    out = ['<h2 id="reconciliation">Reconciliation with the vendor\'s statements</h2>',
           '<p class="muted">The statements imported with <code>incentives import-statements</code>, line by line '
           "against the engine (tables reconciliation_offers, reconciliation_earnings, "
           "reconciliation_qualifications); variance = engine - statement. "
           "<code>incentives reconcile --out claims.csv</code> writes the lines that differ.</p>",
           '<div class="cards">']
    for label, key, value in (("participants compared", "participants", f"{f['participants']:,}"),
                              ("offers agreeing", "offers_agreeing", f"{f['offers_agreeing']:,} / {f['offers']:,}"),
                              ("underpaid (statement below the engine)", "underpaid", _money(f["underpaid"])),
                              ("overpaid (statement above the engine)", "overpaid", _money(f["overpaid"]))):
        out.append(f'<div class="card"><div class="value" data-reconciliation="{key}">{value}</div>'
                   f'<div class="label">{e(label)}</div></div>')
    out.append("</div>")
    out.append('<p class="muted">earning lines: ' + ", ".join(
        f"{status} {f['lines'].get(status, 0):,}"
        for status in ("matched", "amount_differs", "missing_in_statement", "missing_in_engine")) + "</p>")
    rows = con.execute(f"""
        select entity_id, offer_key, engine_incentive_amount, statement_incentive_amount, variance, explanation
        from main.reconciliation_offers where not agrees
        order by abs(variance) desc, entity_id, offer_key limit {SECTION_OFFERS}""").fetchall()
    if not rows:
        out.append('<p class="muted">Every offer agrees with the statements.</p>')
        return "\n".join(out)
    out.append('<table><thead><tr><th>participant</th><th>offer</th><th class="num">engine</th>'
               '<th class="num">statement</th><th class="num">variance</th><th>explanation</th></tr></thead><tbody>')
    for entity, offer, engine, statement, variance, explanation in rows:
        out.append(f'<tr data-reconciled="{e(entity)}|{e(offer)}"><td>{e(entity)}</td><td class="key">{e(offer)}</td>'
                   f'<td class="num">{_money(engine)}</td><td class="num">{_money(statement)}</td>'
                   f'<td class="num">{_money(variance)}</td><td>{e(explanation)}</td></tr>')
    out.append("</tbody></table>")
    if f["offers"] - f["offers_agreeing"] > len(rows):
        out.append(f'<p class="muted">... {f["offers"] - f["offers_agreeing"] - len(rows):,} more offers that differ '
                   "in table reconciliation_offers.</p>")
    return "\n".join(out)
