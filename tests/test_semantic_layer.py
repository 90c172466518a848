"""The semantic layer (models/semantic/_semantic.yml) on the example, with MetricFlow's own CLI
as a data team runs it: `incentives run` builds the example into a DuckDB file, then, in a copy of
the project (mf reads the project of its working directory and its target/), `dbt parse`,
`mf validate-configs` (also against the warehouse) and `mf query`. The metrics equal the sums of
the marts they are defined on: potential earnings per program and per transaction month equal
potential_earnings' (and offer_results' incentive_amount per program), the qualified count,
potential if qualified and next-tier uplift offer_results', the amount at stake
participant_opportunities'. The vendor's statements (docs/reconciliation.md) are the example's
export with one earning line removed, imported: the reconciliation's metrics equal
reconciliation_offers'.

Needs the extra `metrics` (dbt-metricflow; `make install` installs it)."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from contextlib import redirect_stdout
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from compiler.cli import main
from compiler.run.build import PROJECT_DIR

EXAMPLES = PROJECT_DIR / "examples"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """The example built by `incentives run`, a copy of the project to run mf in, and its env."""
    if not (BIN / "mf").exists():
        pytest.fail("mf is missing: install the extra `metrics` (make install)")
    workdir = tmp_path_factory.mktemp("semantic")
    database = workdir / "example.duckdb"
    with redirect_stdout(io.StringIO()):
        assert main(["run", "--programs", str(EXAMPLES / "programs.json"), "--data", str(EXAMPLES / "data"),
                     "--database", str(database)]) == 0
        # the reconciliation's semantic models need its tables: a statement with one line fewer
        statements = workdir / "statements"
        assert main(["export", "--database", str(database), "--out", str(statements)]) == 0
        first = sorted(statements.glob("*.json"))[0]
        response = json.loads(first.read_text())
        response["potential_earnings"] = response["potential_earnings"][1:]
        first.write_text(json.dumps(response))
        assert main(["import-statements", str(statements), "--database", str(database)]) == 0
    project = workdir / "project"
    project.mkdir()
    for name in ("dbt_project.yml", "models", "macros", "seeds"):
        source = PROJECT_DIR / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, project / name)
    env = {**os.environ, "DBT_PROFILES_DIR": str(PROJECT_DIR / "profiles"), "INCENTIVES_DUCKDB_PATH": str(database),
           "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", "MF_DISABLE_UPDATE_CHECK": "1"}
    _run([str(BIN / "dbt"), "parse", "--quiet"], project, env)
    return project, env


def _run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (command, done.stdout, done.stderr)
    return done.stdout


def _query(example: tuple[Path, dict[str, str]], metrics: list[str], group_by: list[str]) -> list[dict[str, str]]:
    project, env = example
    out = project / "query.csv"
    _run([str(BIN / "mf"), "query", "--metrics", ",".join(metrics), "--group-by", ",".join(group_by),
          "--csv", str(out)], project, env)
    with open(out, newline="") as fh:
        return list(csv.DictReader(fh))


def _sql(example: tuple[Path, dict[str, str]], sql: str) -> list[tuple]:
    con = duckdb.connect(example[1]["INCENTIVES_DUCKDB_PATH"], read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _number(text: str) -> Decimal | None:
    return Decimal(text) if text != "" else None


def test_mf_validate_configs(example: tuple[Path, dict[str, str]]) -> None:
    project, env = example
    output = _run([str(BIN / "mf"), "validate-configs"], project, env)
    assert "ERRORS: 0" in output, output


def test_potential_earnings_by_program_equals_the_marts(example: tuple[Path, dict[str, str]]) -> None:
    rows = _query(example, ["potential_earnings", "offer_incentive_amount"], ["program"])
    by_program = {r["program"]: (_number(r["potential_earnings"]), _number(r["offer_incentive_amount"])) for r in rows}
    offers = dict(_sql(example, "select program_key, sum(incentive_amount) from main.offer_results group by 1"
                                " having sum(incentive_amount) <> 0"))
    earnings = dict(_sql(example, "select program_key, sum(incentive_amount) from main.potential_earnings group by 1"))
    assert offers and by_program == {program: (earnings[program], amount) for program, amount in offers.items()}


def test_potential_earnings_by_month_strategy_and_calculator(example: tuple[Path, dict[str, str]]) -> None:
    rows = _query(example, ["potential_earnings", "earning_rows"],
                  ["metric_time__month", "earning__strategy", "earning__calculator"])
    got = {(r["metric_time__month"][:7], r["earning__strategy"], r["earning__calculator"]):
           (_number(r["potential_earnings"]), int(r["earning_rows"])) for r in rows}
    expected = {(month, strategy, calculator): (amount, count) for month, strategy, calculator, amount, count in _sql(
        example, """
        select strftime(date_trunc('month', t.transaction_date), '%Y-%m'), e.strategy_key, e.offer_calculator,
               sum(e.incentive_amount), count(*)
        from main.potential_earnings as e
        inner join main_internal.stg_incentives__transactions as t on t.transaction_id = e.transaction_id
        group by 1, 2, 3""")}
    assert len(got) > 3 and got == expected


def test_offer_metrics_by_program_equal_the_marts(example: tuple[Path, dict[str, str]]) -> None:
    rows = _query(example, ["qualified_offers", "potential_if_qualified", "next_tier_uplift", "amount_at_stake"],
                  ["program"])
    got = {r["program"]: (int(r["qualified_offers"]), _number(r["potential_if_qualified"]),
                          _number(r["next_tier_uplift"]), _number(r["amount_at_stake"])) for r in rows}
    at_stake = dict(_sql(example, "select program_key, sum(amount_at_stake) from main.participant_opportunities"
                                  " group by 1"))
    expected = {program: (qualified, if_qualified, uplift, at_stake.get(program))
                for program, qualified, if_qualified, uplift in _sql(example, """
        select program_key, sum(case when qualified then 1 else 0 end), sum(potential_if_qualified),
               sum(next_tier_uplift)
        from main.offer_results group by 1""")}
    assert len(got) == 6 and got == expected


def test_reconciliation_metrics_by_program_equal_the_mart(example: tuple[Path, dict[str, str]]) -> None:
    rows = _query(example, ["reconciliation_variance", "underpaid", "overpaid", "offers_differing"], ["program"])
    got = {r["program"]: (_number(r["reconciliation_variance"]), _number(r["underpaid"]), _number(r["overpaid"]),
                          int(r["offers_differing"])) for r in rows}
    expected = {program: (variance, under, over, int(differing)) for program, variance, under, over, differing in _sql(
        example, """
        select program_key, sum(variance), sum(case when variance > 0 then variance else 0 end),
               sum(case when variance < 0 then -variance else 0 end), sum(case when agrees then 0 else 1 end)
        from main.reconciliation_offers group by 1""")}
    assert len(got) == 6 and got == expected
    assert sum(v[0] for v in got.values()) > 0 and sum(v[3] for v in got.values()) == 1
