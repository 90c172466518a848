"""`incentives run`: compile, load the input files, dbt build, record, swap in, on a target.

The steps are the modules of compiler/run/ (load.py, which compiles alongside, with
validate_data.py, build.py, record.py); where the results are built and how they are swapped in is the target's
(compiler/targets/): a new DuckDB file renamed over the old one, or fresh schemas of a
warehouse. A failed or killed run leaves the previous results exactly as they were.
"""

from __future__ import annotations

import sys
from typing import Any
from pathlib import Path

from .run.build import DEFAULT_TARGET
from .run.progress import Say, say_to_stdout
from .run.record import Summary
from .targets import get_target
from .targets.base import RunJob


def run(programs: Path, data_dir: Path, database: Path | None, say: Say = say_to_stdout, threads: int = 1,
        unit_tests: bool = False, target: str = DEFAULT_TARGET, wait: float | None = None,
        skip_invalid_programs: bool = False, skip_invalid_rows: bool = False,
        statements: Path | None = None, forecast: dict[str, Any] | None = None) -> Summary:
    """Compile, load, build into a new file (DuckDB) or new schemas and replace the previous
    results on success.

    The run holds the lock of its target (compiler/run/locks.py and the target's) from before it touches
    anything until it is done; `wait`: seconds to wait for another run's lock (None: fail at once).
    `skip_invalid_programs`, `skip_invalid_rows`: leave out the programs or input rows with
    problems (listed in the tables rejected_programs, rejected_rows and in the summary) instead
    of refusing the run.
    `target` postgres, spark or spark_thrift: the same on that profile target
    (compiler/targets/warehouse.py), which builds into fresh schemas and swaps them in;
    `database` is not used.
    `statements`: the vendor's statements (a folder of <entity_id>.json or a .jsonl file), loaded
    beside the inputs and reconciled in the same build (docs/reconciliation.md).
    `forecast`: the dbt vars of the season-end forecast (cli.forecast_vars; docs/forecast.md)."""
    job = RunJob(programs, data_dir, say, threads, unit_tests, skip_invalid_programs, skip_invalid_rows, statements,
                 forecast)
    return get_target(target, database=database).run(job, wait)


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use the `incentives` command")
