"""The `incentives` command line: compile, validate, run, export, what-if, report, import-statements, reconcile."""

from __future__ import annotations

import argparse
import contextlib
import gc
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

from . import __version__
from .errors import IncentivesError
from .run.build import DEFAULT_TARGET
from .targets import TARGETS

EXIT_REJECTIONS = 3  # `run --skip-invalid-...` completed, but left programs or input rows out

DEFAULT_SEEDS_DIR = Path(__file__).resolve().parent.parent / "seeds"


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as exc:
        raise IncentivesError(f"cannot read {path}: {exc.strerror}") from None


def cmd_compile(args: argparse.Namespace) -> int:
    from .compile.parse import gc_paused
    from .compile.programs import compile_text
    from .compile.write import write_failed_compile, write_rules
    from .errors import ProgramError

    with gc_paused():  # resumed once the rule rows are gone (see gc_paused)
        try:
            rules, _ = compile_text(_read(args.programs), str(args.programs))
        except ProgramError:
            # no rule table that looks valid stays behind: `dbt build` fails on last_compile_succeeded
            write_failed_compile(args.out, str(args.programs))
            raise
        written = write_rules(rules, args.out, str(args.programs))
        programs, offers = rules.programs, rules.offers
        del rules
    print(f"Compiled {programs} programs, {offers} offers into {len(written)} rule tables (dbt seeds) in {args.out}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from .compile.programs import compile_text

    rules, _ = compile_text(_read(args.programs), str(args.programs))
    print(f"{args.programs}: {rules.programs} programs, {rules.offers} offers, no problems found")
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from .runner import run

    if args.target == "duckdb" and args.database is None:
        raise IncentivesError("--database FILE.duckdb is needed with the duckdb target")
    summary = run(args.programs, args.data, args.database, threads=args.threads, target=args.target,
                  wait=args.wait, skip_invalid_programs=args.skip_invalid_programs,
                  skip_invalid_rows=args.skip_invalid_rows, statements=args.statements,
                  forecast=forecast_vars(args.forecast, args.as_of, args.forecast_until))
    print(summary.render())
    if summary.rejections:
        programs = len({index for index, _ in summary.rejected_programs})
        left_out = [f"{programs:,} program{'s' if programs != 1 else ''}"] if programs else []
        left_out += ([f"{summary.rejected_rows:,} input row problem{'s' if summary.rejected_rows != 1 else ''}"]
                     if summary.rejected_rows else [])
        print(f"warning: completed with rejections: {' and '.join(left_out)} left out "
              "(tables rejected_programs, rejected_rows)", file=sys.stderr)
        return EXIT_REJECTIONS
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from .export import export

    count = export(args.database, args.out, args.entity)
    print(f"Exported {count:,} participants to {args.out}")
    return 0


def cmd_what_if(args: argparse.Namespace) -> int:
    from .whatif import what_if

    outcome = what_if(args.database, args.entity, args.buy or [], args.property or [], args.type,
                      say=print if args.verbose else (lambda _: None))
    print(outcome.render())
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from .report import report

    path = report(args.database, args.out)
    print(f"Report written to {path}")
    return 0


def cmd_import_statements(args: argparse.Namespace) -> int:
    from .reconcile import import_statements

    imported = import_statements(args.database, args.statements, args.skip_invalid_rows, args.wait,
                                 threads=args.threads)
    print(f"Imported {imported.participants:,} statements into {args.database} "
          f"({', '.join(f'{t} {n:,}' for t, n in imported.counts.items())}); "
          f"`incentives reconcile --database {args.database}` summarizes them")
    if imported.rejected:
        for message in imported.rejected[:20]:
            print(f"  {message}", file=sys.stderr)
        print(f"warning: completed with rejections: {len(imported.rejected):,} statement problem"
              f"{'s' if len(imported.rejected) != 1 else ''} left out (table rejected_rows)", file=sys.stderr)
        return EXIT_REJECTIONS
    return 0


def cmd_reconcile(args: argparse.Namespace) -> int:
    from .reconcile import reconcile

    reconcile(args.database, args.out)
    return 0


def _date(text: str) -> str:
    import datetime as dt

    try:
        return dt.date.fromisoformat(text.strip()).isoformat()
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an ISO date like 2026-03-31; got {text!r}") from None


def forecast_vars(forecast: bool, as_of: str | None, until: str | None) -> dict[str, object] | None:
    """The dbt vars of the season-end forecast (docs/forecast.md): on with --forecast, --as-of or
    --forecast-until; None when off."""
    if not (forecast or as_of or until):
        return None
    return {"incentives_using_forecast": True, **({"incentives_as_of": as_of} if as_of else {}),
            **({"incentives_forecast_until": until} if until else {})}


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of seconds (0 or more); got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="incentives", description=__doc__)
    parser.add_argument("--version", action="version", version=f"incentives {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compile", help="compile programs JSON into the rule tables (dbt seeds) the dbt project reads")
    p.add_argument("programs", type=Path, help="GET /programs JSON file")
    p.add_argument("--out", type=Path, default=DEFAULT_SEEDS_DIR,
                   help="seeds folder to write the rule tables into (default: the project's seeds/); "
                        "`dbt build` loads them")
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("validate", help="check programs JSON and report every problem; changes nothing")
    p.add_argument("programs", type=Path)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("run", help="compile, load input files, dbt build into a DuckDB file (or PostgreSQL, Spark, a Spark Thrift server)")
    p.add_argument("--programs", type=Path, required=True, help="GET /programs JSON file")
    p.add_argument("--data", type=Path, required=True, help="folder with transactions and products (.csv or .parquet) and the optional inputs")
    p.add_argument("--database", type=Path, help="DuckDB file that receives the results (duckdb target)")
    p.add_argument("--target", choices=TARGETS, default=DEFAULT_TARGET,
                   help="the profiles/profiles.yml target to build on: duckdb (default), postgres, spark or "
                        "spark_thrift (a Spark Thrift server); the others leave the results in the target's schema")
    p.add_argument("--threads", type=int, default=1, help="dbt threads (default 1)")
    p.add_argument("--wait", type=_seconds, default=None, metavar="SECONDS",
                   help="when another run holds the target, wait up to SECONDS for it to finish "
                        "(default: fail at once with exit code 1)")
    p.add_argument("--skip-invalid-programs", action="store_true",
                   help="compute every valid program and leave out those with problems (listed in the summary and "
                        "the table rejected_programs; exit code 3 when any) instead of refusing the run")
    p.add_argument("--skip-invalid-rows", action="store_true",
                   help="leave out the input rows with problems (listed in the summary and the table rejected_rows; "
                        "exit code 3 when any) instead of refusing the run")
    p.add_argument("--statements", type=Path, default=None, metavar="DIR",
                   help="the vendor's statements (a folder of <entity_id>.json, or a .jsonl file) to reconcile "
                        "with the results (tables reconciliation_*; docs/reconciliation.md)")
    p.add_argument("--forecast", action="store_true",
                   help="project every participant's season to its end and compute what to accrue today "
                        "(table forecast_results; docs/forecast.md)")
    p.add_argument("--as-of", type=_date, default=None, metavar="DATE",
                   help="the forecast's day (default: the latest transaction_date); implies --forecast")
    p.add_argument("--forecast-until", type=_date, default=None, metavar="DATE",
                   help="the forecast's last day (default: the latest end of the periods that contain the "
                        "as-of day); implies --forecast")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("export", help="write one JSON file per participant in the API's calculations-response shape")
    p.add_argument("--database", type=Path, required=True, help="DuckDB file with the results of `incentives run`")
    p.add_argument("--out", type=Path, required=True, help="folder to write <entity_id>.json into")
    p.add_argument("--entity", help="export only this participant")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("what-if", help="evaluate one participant's scenario (purchases, property values) against the "
                                       "inputs of the run that built a results file; prints what changes")
    p.add_argument("--database", type=Path, required=True, help="DuckDB file with the results of `incentives run`")
    p.add_argument("--entity", required=True, help="the participant")
    p.add_argument("--buy", action="append", metavar="SKU=QTY[@AMOUNT][:DATE]",
                   help="a hypothetical purchase (repeatable); AMOUNT defaults to QTY x the program price, DATE to the "
                        "participant's last transaction date")
    p.add_argument("--property", action="append", metavar="[LEVEL:]KEY=VALUE",
                   help="a property value within the scenario (repeatable); without LEVEL at request and entity level")
    p.add_argument("--type", default=None, help="the purchases' transaction_type (default: the participant's most frequent)")
    p.add_argument("--verbose", action="store_true", help="print dbt's progress")
    p.set_defaults(func=cmd_what_if)

    p = sub.add_parser("report", help="write a self-contained HTML report (totals, progress to the next tier, amount at stake)")
    p.add_argument("--database", type=Path, required=True, help="DuckDB file with the results of `incentives run`")
    p.add_argument("--out", type=Path, required=True, help="the HTML file to write")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("import-statements", help="load the vendor's statements into a results file and reconcile "
                                                 "them with the engine's rows (atomic)")
    p.add_argument("statements", type=Path, help="a folder of <entity_id>.json (as `incentives export` writes) or a "
                                                 ".jsonl file with entity_id beside each response")
    p.add_argument("--database", type=Path, required=True, help="DuckDB file with the results of `incentives run`")
    p.add_argument("--skip-invalid-rows", action="store_true",
                   help="leave out the statements with problems (table rejected_rows; exit code 3) instead of "
                        "refusing the import")
    p.add_argument("--wait", type=_seconds, default=None, metavar="SECONDS",
                   help="when a run holds the file, wait up to SECONDS for it")
    p.add_argument("--threads", type=int, default=1, help="dbt threads (default 1)")
    p.set_defaults(func=cmd_import_statements)

    p = sub.add_parser("reconcile", help="summarize the reconciliation of the statements; write the lines that "
                                         "differ as a CSV for a claim")
    p.add_argument("--database", type=Path, required=True, help="DuckDB file with imported statements")
    p.add_argument("--out", type=Path, default=None, help="CSV file for the lines that differ (claims.csv)")
    p.set_defaults(func=cmd_reconcile)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point: exit 0 on success, 1 with a readable message on any failure, 3 when a run with
    --skip-invalid-... left programs or rows out, 130 on Ctrl-C."""
    args = build_parser().parse_args(argv)
    with _noting_interrupts() as interrupted:
        try:
            return args.func(args)
        except KeyboardInterrupt:
            return _interrupted()
        except IncentivesError as exc:
            if interrupted:
                return _interrupted()
            print(f"error: {exc.render()}", file=sys.stderr)
            return 1
        except Exception as exc:  # a bug, not bad input: still no traceback unless asked for
            if interrupted:
                return _interrupted()
            if os.environ.get("INCENTIVES_DEBUG"):
                raise
            print(f"error: internal error ({type(exc).__name__}: {exc}); the previous results are unchanged. "
                  "Set INCENTIVES_DEBUG=1 to see the traceback and please report it.", file=sys.stderr)
            return 2


def _interrupted() -> int:
    print("error: interrupted; the previous results are unchanged", file=sys.stderr)
    return 130


@contextlib.contextmanager
def _noting_interrupts() -> Iterator[list[bool]]:
    """While in the block, Ctrl-C does what it did and is also noted in the list yielded.

    Some libraries turn the KeyboardInterrupt raised by Python's handler into an error of their
    own: DuckDB's Python client into a failed query (RuntimeError "Query interrupted"), psycopg2,
    while it reads a COPY's file, into QueryCanceled. An error after a noted Ctrl-C is the
    interruption. Wraps whatever Python handler is installed (pyspark installs its own once a
    SparkContext exists); only the main thread can."""
    noted: list[bool] = []
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield noted
        return

    def note(signum: int, frame: Any) -> None:
        noted.append(True)
        previous(signum, frame)

    signal.signal(signal.SIGINT, note)
    try:
        yield noted
    finally:
        signal.signal(signal.SIGINT, previous)


def entry_point() -> int:
    """The `incentives` command: `main()` on this process' arguments, and then the process ends.

    Before it ends, every object is moved out of the garbage collector's reach (gc.freeze): the
    interpreter's final collections would otherwise walk everything dbt left in memory (about
    0.5 s of a small run) only for the operating system to reclaim it anyway. Files and
    connections are closed before this point; atexit handlers still run."""
    code = main()
    gc.freeze()
    return code


if __name__ == "__main__":
    sys.exit(entry_point())
