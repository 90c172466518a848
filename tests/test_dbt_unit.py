"""The dbt unit tests (`unit_tests:` in the YAML beside the models: one per folder of
models/intermediate/ and models/marts/_marts.yml) all pass, and each sits beside its model.

dbt unit tests read the column types of every mocked ref from the database, so the test first
builds the example into a fresh DuckDB file (`incentives run`, which leaves unit tests out),
then runs `dbt test --select test_type:unit` against it. See tests/dbt/README.md.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest

from compiler.errors import RunError
from compiler.run.build import PROJECT_DIR, run_dbt
from compiler.runner import run

EXAMPLES = PROJECT_DIR / "examples"
# the models built only with scenarios, the forecast or the unit tests (macros/settings.sql, materialized_when)
SCENARIO_MODEL_PATHS = ("path:models/staging/incentives_scenarios", "path:models/intermediate/scenarios",
                        "path:models/intermediate/forecast")
NODE_LINE = re.compile(r"^\s*\[\s*\d+\]\s+(?P<type>\S+)\s+(?P<name>\S+)\s+(?P<status>\S+)\s*$")


@pytest.fixture(scope="module", autouse=True)
def _dbt_environment() -> Iterator[None]:
    """run_dbt sets these for the in-process dbt; restored after the module."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", "")
        monkeypatch.setenv("INCENTIVES_THREADS", "1")
        yield


@pytest.fixture(scope="module")
def built_example(_dbt_environment: None, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example built into a fresh DuckDB file, once for the module (a test that changes it
    works on a copy)."""
    database = tmp_path_factory.mktemp("built") / "example.duckdb"
    run(EXAMPLES / "programs.json", EXAMPLES / "data", database, say=lambda _: None)
    # without scenarios the scenario and forecast models are ephemeral (materialized_when); with the
    # unit tests on they are relations, which the fixtures of their readers mock: built empty here
    run_dbt(["run", "--empty", "--select", *SCENARIO_MODEL_PATHS, "--vars", json.dumps({"incentives_unit_tests": True})],
            database, say=lambda _: None)
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


def test_unique_key_tests_find_duplicates(built_example: Path, tmp_path: Path) -> None:
    """The result tables' unique-key data tests (macros/tests/unique_combination.sql; DuckDB
    groups a hash first) fail on a repeated key and pass on the built example."""
    database = tmp_path / built_example.name
    shutil.copyfile(built_example, database)
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
    status = {m["name"]: m["status"] for m in map(NODE_LINE.match, lines) if m}
    failing = sorted(name.split("__")[0] for name, outcome in status.items() if outcome != "pass")
    assert failing == ["unique_combination_offer_results_entity_id", "unique_combination_potential_earnings_transaction_id"], lines
    assert len(status) >= 8, lines  # every mart's key test ran
    assert "Got 1 result" in str(failed.value)
    # each failed test is named once in the error message, followed by what its failing rows mean
    # and the rows (the duplicated key); they are not among the progress lines
    message = str(failed.value)
    assert message.count("unique_combination_potential_earnings_") == 1, message
    assert message.count("unique_combination_offer_results_") == 1, message
    assert "    (unique_combination): 1 row\n        entity_id = " in message, message
    assert "rows_per_key = 2" in message and not any("rows_per_key" in line for line in lines), (message, lines)


def test_every_model_has_its_yaml_and_unit_tests_beside_it() -> None:
    """Every model is documented in a YAML of its own folder, each unit test sits in a YAML beside
    the model it tests, and no YAML is over 600 lines (a folder whose YAML would be has one per
    model: models/intermediate/qualifications/_<model>.yml)."""
    import yaml

    models_dir = PROJECT_DIR / "models"
    documented: dict[str, Path] = {}
    misplaced: list[str] = []
    for path in sorted(models_dir.rglob("*.yml")):
        doc = yaml.safe_load(path.read_text()) or {}
        for model in doc.get("models", []):
            documented[model["name"]] = path.parent
        for unit in doc.get("unit_tests", []):
            if not (path.parent / f"{unit['model']}.sql").exists():
                misplaced.append(f"{path.relative_to(PROJECT_DIR)}: unit test {unit['name']} tests {unit['model']}, "
                                 f"which is not in {path.parent.relative_to(PROJECT_DIR)}/")
    for sql in sorted(models_dir.rglob("*.sql")):
        if documented.get(sql.stem) != sql.parent:
            misplaced.append(f"{sql.relative_to(PROJECT_DIR)}: no entry in a YAML of its own folder")
    long = [f"{p.relative_to(PROJECT_DIR)}: {n} lines" for p in sorted(models_dir.rglob("*.yml"))
            if (n := len(p.read_text().splitlines())) > 600]
    assert not misplaced, "\n".join(misplaced)
    assert not long, f"YAML over 600 lines: {long}"


def test_one_macro_per_qualification_type_and_calculator() -> None:
    """The qualification types and calculators dbt knows are the macros qualification_<type> and
    calculator_<name> (one file each, macros/implementations.sql); they are the values the
    compiled seeds accept (their _incentive_rules.yml, generated from the CLI's one list)."""
    import yaml

    from compiler.rule_tables import seed_name, seeds_yaml

    seeds = yaml.safe_load(seeds_yaml())["seeds"]

    def accepted(table: str, column: str) -> set[str]:
        seed = next(s for s in seeds if s["name"] == seed_name(table))
        col = next(c for c in seed["columns"] if c["name"] == column)
        test = next(t["accepted_values"] for t in col["data_tests"] if isinstance(t, dict) and "accepted_values" in t)
        return set(test["arguments"]["values"])

    macro = re.compile(r"{%-?\s*macro\s+(\w+)\s*\(")
    defined = {name for path in (PROJECT_DIR / "macros").rglob("*.sql") for name in macro.findall(path.read_text())}
    for prefix, folder, table, column in (("qualification_", "qualifications", "qualifications", "qualification_type"),
                                          ("calculator_", "calculators", "offers", "calculator_key")):
        names = {n[len(prefix):] for n in defined if n.startswith(prefix)}
        assert names == accepted(table, column), (prefix, names ^ accepted(table, column))
        for name in names:
            assert (PROJECT_DIR / "macros" / folder / f"{name}.sql").exists(), name


def test_history_key_test_reads_the_latest_run(built_example: Path, tmp_path: Path) -> None:
    """offer_results_history's unique-key test reads the rows of the latest run (`latest_by:
    recorded_at`), which the build appended: a repeated key there fails it, one in an earlier run's
    rows (tested when that run appended them) is not read again."""
    database = tmp_path / built_example.name
    shutil.copyfile(built_example, database)
    select = ["test", "--select", "test_name:unique_combination,offer_results_history", "--vars", json.dumps({})]
    con = duckdb.connect(str(database))
    try:  # an earlier run's rows, twice
        for _ in range(2):
            con.execute("insert into main.offer_results_history select * replace ('earlier' as run_id, "
                        "recorded_at - interval 1 day as recorded_at) from main.offer_results_history "
                        "where run_id <> 'earlier' limit 1")
    finally:
        con.close()
    run_dbt(select, database, say=lambda _: None)
    con = duckdb.connect(str(database))
    try:
        con.execute("insert into main.offer_results_history select * from main.offer_results_history "
                    "where run_id <> 'earlier' limit 1")
    finally:
        con.close()
    with pytest.raises(RunError) as failed:
        run_dbt(select, database, say=lambda _: None)
    assert "unique_combination_offer_results_history_run_id" in str(failed.value)
