"""The dbt unit tests (`unit_tests:` in models/intermediate/_intermediate.yml and
models/marts/_marts.yml) all pass.

dbt unit tests read the column types of every mocked ref from the database, so the test first
builds the example into a fresh DuckDB file (`incentives run`, which leaves unit tests out),
then runs `dbt test --select test_type:unit` against it. See tests/dbt/README.md.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pytest

from compiler.errors import RunError
from compiler.runner import PROJECT_DIR, run, run_dbt

EXAMPLES = PROJECT_DIR / "examples"
NODE_LINE = re.compile(r"^\s*\[\s*\d+\]\s+(?P<type>\S+)\s+(?P<name>\S+)\s+(?P<status>\S+)\s*$")


@pytest.fixture()
def built_example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example built into a fresh DuckDB file."""
    # run_dbt sets these for the in-process dbt; restore them afterwards.
    monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", "")
    monkeypatch.setenv("INCENTIVES_THREADS", "1")

    database = tmp_path / "example.duckdb"
    run(EXAMPLES / "programs.json", EXAMPLES / "data", database, say=lambda _: None)
    return database


def test_dbt_unit_tests_pass(built_example: Path) -> None:
    database = built_example
    lines: list[str] = []
    error: RunError | None = None
    try:
        run_dbt(["test", "--select", "test_type:unit", "--vars", json.dumps({"incentives_unit_tests": True})],
                database, say=lines.append)
    except RunError as exc:
        error = exc

    results = [m.groupdict() for m in map(NODE_LINE.match, lines) if m]
    unit = [r for r in results if r["type"] == "unit_test"]
    failed = [f"{r['name']}: {r['status']}" for r in unit if r["status"] not in ("pass", "success")]
    assert unit, f"no unit test ran: {error or lines}"
    assert not failed and error is None, (
        f"{len(failed)} of {len(unit)} dbt unit tests failed: {failed}"
        f"{f' ({error})' if error and not failed else ''}")


def test_unique_key_tests_find_duplicates(built_example: Path) -> None:
    """The result tables' unique-key data tests (macros/tests/unique_combination.sql; DuckDB
    groups a hash first) fail on a repeated key and pass on the built example."""
    database = built_example
    con = duckdb.connect(str(database))
    try:
        con.execute("insert into main.potential_earnings select * from main.potential_earnings limit 1")
        con.execute("insert into main.offer_results select * from main.offer_results limit 1")
    finally:
        con.close()

    lines: list[str] = []
    with pytest.raises(RunError) as failed:
        run_dbt(["test", "--select", "test_name:unique_combination,path:models/marts",
                 "--vars", json.dumps({})], database, say=lines.append)
    status = {m["name"].split("_")[2]: m["status"] for m in map(NODE_LINE.match, lines) if m}
    assert status == {"potential": "fail", "offer": "fail", "stack": "pass", "qualification": "pass",
                      "participant": "pass"}, lines
    assert "Got 1 result" in str(failed.value)
