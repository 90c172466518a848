"""`dbt build` alone, as a team runs it from a scheduler: the rule tables as seeds, the inputs as
sources pointed anywhere by vars, dbt's own tests refusing bad rules and bad input rows.

- After `incentives compile`, `dbt build` with only the profile and vars equals `incentives run`
  on DuckDB and PostgreSQL (Spark's case: through the Thrift server, tests/test_spark_thrift.py),
  with the inputs in a schema of one's own under other table names, no enrollments table
  (`incentives_using_enrollments: false`) and a pass-through column reaching potential_earnings.
- A hand-damaged rule table (a qualifier naming a missing qualification; a duplicated rate) and a
  bad input row (a non-numeric amount) each fail `dbt build` with a test naming the problem.
"""

from __future__ import annotations

import io
import json
import shutil
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Any, Iterator

import duckdb
import pytest

from compiler.cli import main
from compiler.run.build import PROJECT_DIR, _release_dbt_database
from compiler.run.load import load_inputs
from compiler.run.record import RESULT_TABLES
from compiler.targets.warehouse import connect, target_settings
from tests.harness import DUCKDB_AND_POSTGRES, engine_params, normalized, read_results, read_tables

EXAMPLES = PROJECT_DIR / "examples"
# the example's inputs under the names a team's warehouse gives them (no enrollments table)
OWN_NAMES = {"transactions": "sales_lines", "products": "sku_catalogue", "properties": "entity_properties",
             "waivers": "program_waivers", "prices": "price_list"}
PASSTHROUGH = "invoice_number"


def dbt_vars(own_schema: str, **extra: Any) -> dict[str, Any]:
    return {"incentives_input_schema": own_schema, "incentives_using_enrollments": False,
            "incentives_transaction_passthrough_columns": [PASSTHROUGH],
            **{f"incentives_{name}_identifier": own for name, own in OWN_NAMES.items()}, **extra}


def invoke_dbt(args: list[str], project_dir: Path = PROJECT_DIR, warnings: list[str] | None = None,
               messages: dict[str, str] | None = None, printed: list[str] | None = None) -> tuple[bool, list[str]]:
    """dbt in-process: (success, the names of the nodes that failed or errored); `warnings`
    collects the message of every warning dbt logs, `messages` each failed node's message,
    `printed` what the project printed (print())."""
    from dbt.cli.main import dbtRunner

    failed: list[str] = []

    def on_event(event: object) -> None:
        info = getattr(event, "info", None)
        if warnings is not None and info is not None and info.level == "warn":
            warnings.append(f"{info.name}: {info.msg}")
        if info is not None and info.name == "PrintEvent" and printed is not None:
            printed.append(event.data.msg)  # type: ignore[attr-defined]
        if info is not None and info.name == "NodeFinished":
            node = event.data.node_info  # type: ignore[attr-defined]
            if node.node_status in ("error", "fail", "runtime error"):
                failed.append(node.node_name)
                if messages is not None:
                    messages[node.node_name] = event.data.run_result.message  # type: ignore[attr-defined]

    try:
        result = dbtRunner(callbacks=[on_event]).invoke(
            [*args, "--project-dir", str(project_dir), "--profiles-dir", str(PROJECT_DIR / "profiles"), "--quiet"])
    finally:
        _release_dbt_database()  # dbt-duckdb keeps the file open in this process
    return bool(result.success), failed


def _scratch_inputs(bad_amount: bool = False) -> duckdb.DuckDBPyConnection:
    scratch = duckdb.connect()
    load_inputs(scratch, EXAMPLES / "data")
    scratch.execute(f"alter table raw.transactions add column {PASSTHROUGH} varchar")
    scratch.execute(f"update raw.transactions set {PASSTHROUGH} = 'INV-' || transaction_id")
    if bad_amount:
        scratch.execute("update raw.transactions set amount = '12,50' where _row = 7")
    return scratch


def _without(rows: list[dict[str, Any]], *columns: str) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k not in columns} for row in rows]


@pytest.fixture(scope="module")
def run_results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list]:
    """`incentives run` of the example on DuckDB (what `make run` builds)."""
    database = tmp_path_factory.mktemp("run") / "example.duckdb"
    with redirect_stdout(io.StringIO()):
        assert main(["run", "--programs", str(EXAMPLES / "programs.json"), "--data", str(EXAMPLES / "data"),
                     "--database", str(database)]) == 0
    results = read_results(database, RESULT_TABLES)
    return {name: normalized(_without(rows, "run_id")) for name, rows in results.items()}


# Spark's case runs through the Thrift server, as a team runs it (tests/test_spark_thrift.py):
# the same vars and pass-through column on tables created through the server
@pytest.mark.parametrize("engine", engine_params(DUCKDB_AND_POSTGRES))
def test_dbt_build_alone_equals_incentives_run(engine: str, tmp_path: Path, run_results: dict[str, list],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with redirect_stdout(io.StringIO()):  # the compiled example into seeds/ (not committed)
        assert main(["compile", str(EXAMPLES / "programs.json")]) == 0
    with _own_inputs(engine, tmp_path, monkeypatch, "alone") as (own_schema, build_schema, database):
        extra = {"incentives_build_schema": build_schema} if build_schema else {}
        ok, failed = invoke_dbt(["build", "--target", engine, "--exclude", "test_type:unit",
                                 "--vars", json.dumps(dbt_vars(own_schema, **extra))])
        assert ok and not failed, failed
        if engine == "duckdb":
            built = read_results(database, RESULT_TABLES)
        else:
            built = read_tables(engine, RESULT_TABLES, build_schema)
        earnings = built["potential_earnings"]
        assert earnings and all(row[PASSTHROUGH] == "INV-" + row["transaction_id"] for row in earnings)
        for name in RESULT_TABLES:
            assert normalized(_without(built[name], "run_id", PASSTHROUGH)) == run_results[name], name


@contextmanager
def _own_inputs(engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                name: str) -> Iterator[tuple[str, str | None, Path | None]]:
    """The example's inputs under OWN_NAMES in a schema of their own on `engine`: yields (that
    schema, the schema to build into (None: the target's), the DuckDB file); drops the schemas after."""
    scratch = _scratch_inputs()
    database = None
    if engine == "duckdb":
        database = tmp_path / "warehouse.duckdb"
        monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", str(database))
        _copy_to_duckdb(scratch, database)
        own_schema, build_schema, warehouse = "sales", None, None
    else:
        settings = target_settings(engine)
        own_schema, build_schema = f"{settings['schema']}_sales", f"{settings['schema']}_{name}"
        warehouse = connect(engine, settings)
        warehouse.drop_schema(own_schema)
        warehouse.create_schema(own_schema)
        for table, own in OWN_NAMES.items():
            warehouse.copy_from_duckdb(scratch, f"raw.{table}", own_schema, own)
    scratch.close()
    try:
        yield own_schema, build_schema, database
    finally:
        if warehouse is not None:
            for schema in (own_schema, build_schema, f"{build_schema}_internal", f"{build_schema}_rules"):
                warehouse.drop_schema(schema)
            warehouse.close()


def copy_project(copy: Path) -> Path:
    """The dbt project in the new folder `copy`, with the compiled example's seeds."""
    copy.mkdir()
    for name in ("dbt_project.yml", "models", "macros"):
        source = PROJECT_DIR / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, copy / name)
    (copy / "tests" / "dbt").mkdir(parents=True)
    with redirect_stdout(io.StringIO()):
        assert main(["compile", str(EXAMPLES / "programs.json"), "--out", str(copy / "seeds")]) == 0
    return copy


@pytest.fixture()
def project_copy(tmp_path: Path) -> Path:
    """The dbt project with the compiled example's seeds in a folder of its own, to damage."""
    return copy_project(tmp_path / "project")


def _copy_to_duckdb(scratch: duckdb.DuckDBPyConnection, database: Path) -> None:
    """The scratch inputs into schema `sales` of a DuckDB file, under OWN_NAMES."""
    scratch.execute(f"attach '{database}' as warehouse")
    scratch.execute("create schema warehouse.sales")
    for name, own in OWN_NAMES.items():
        scratch.execute(f"create table warehouse.sales.{own} as select * exclude (_row) from raw.{name}")
    scratch.execute("detach warehouse")


def _duckdb_inputs(database: Path, bad_amount: bool = False) -> None:
    scratch = _scratch_inputs(bad_amount)
    _copy_to_duckdb(scratch, database)
    scratch.close()


def _build_own_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, project_dir: Path = PROJECT_DIR,
                      bad_amount: bool = False, printed: list[str] | None = None) -> tuple[bool, list[str]]:
    """`dbt build` of `project_dir` on DuckDB against the example's inputs under OWN_NAMES."""
    database = tmp_path / "warehouse.duckdb"
    monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", str(database))
    _duckdb_inputs(database, bad_amount)
    return invoke_dbt(["build", "--exclude", "test_type:unit", "--vars", json.dumps(dbt_vars("sales"))], project_dir,
                      printed=printed)


def test_damaged_rule_tables_fail_dbt_build_with_a_test_naming_them(project_copy: Path, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    terms = project_copy / "seeds" / "incentives__qualifier_terms.csv"
    lines = terms.read_text().splitlines()
    fields = lines[1].split(",")
    fields[3] = "no_such_qualification"  # qualification_key of the first term
    terms.write_text("\n".join([lines[0], ",".join(fields), *lines[2:]]) + "\n")
    rates = project_copy / "seeds" / "incentives__standard_rates.csv"
    rates.write_text(rates.read_text() + rates.read_text().splitlines()[1] + "\n")  # a rate twice
    printed: list[str] = []
    ok, failed = _build_own_tables(tmp_path, monkeypatch, project_copy, printed=printed)
    assert not ok
    assert sorted(failed) == ["incentives_qualifier_terms_name_qualifications",
                              "incentives_unique_combination_incentives__standard_rates_offer_key__incentive_rate_key__sku_key"]
    # what is wrong, with the offending key, printed once per failed test after the build
    # (macros/tests/failing_rows.sql)
    assert len(printed) == 2, printed
    terms, rates = sorted(printed)
    assert terms.startswith("failing rows of test incentives_qualifier_terms_name_qualifications (a qualifier term"
                            " names a qualification its program or offer does not define): 1 row\n"), terms
    assert f"term_id = {fields[2]}, qualification_key = no_such_qualification" in terms, terms
    assert rates.startswith("failing rows of test incentives_unique_combination_incentives__standard_rates_offer_key__"
                            "incentive_rate_key__sku_key (two rows of the rule table share its key): 1 row\n"), rates
    assert "rows_per_key = 2" in rates, rates


def test_a_failed_compile_fails_dbt_build(project_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    programs = json.loads((EXAMPLES / "programs.json").read_text())
    programs["programs"][0]["qualifier"] = "no_such_qualification"
    bad = tmp_path / "programs.json"
    bad.write_text(json.dumps(programs))
    assert main(["compile", str(bad), "--out", str(project_copy / "seeds")]) == 1
    ok, failed = _build_own_tables(tmp_path, monkeypatch, project_copy)
    assert not ok
    assert failed == ["incentives_last_compile_succeeded_incentives__catalogue_status"]


def test_former_var_names_are_still_read_with_one_warning(project_copy: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The vars' former names (macros/settings.sql: input_schema, using_<input>, run_id, ...) are
    still read, named in one deprecation warning per build: `using_enrollments: false` disables the
    enrollments' source (its YAML) and empties its staging model (its SQL), `run_id` is the result
    rows' id. The same build with the new names warns of nothing."""
    database = tmp_path / "warehouse.duckdb"
    monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", str(database))
    compiled = project_copy / "target" / "compiled" / "incentives" / "models"
    for former in (True, False):
        names = ({"using_enrollments": False, "run_id": "r1"} if former
                 else {"incentives_using_enrollments": False, "incentives_run_id": "r1"})
        ok, failed = invoke_dbt(["compile", "--select", "stack_coverage", "--vars", json.dumps(names)], project_copy)
        assert ok, failed
        assert "cast('r1' as" in (compiled / "marts" / "stack_coverage.sql").read_text()
        warnings: list[str] = []
        ok, failed = invoke_dbt(["run", "--select", "stg_incentives__enrollments", "--vars", json.dumps(names)],
                                project_copy, warnings)
        assert ok, failed
        staging = compiled / "staging" / "incentives_enrollments" / "stg_incentives__enrollments.sql"
        assert "where 1 = 0" in staging.read_text()
        if not former:
            assert not warnings, warnings
            continue
        assert len(warnings) == 1, warnings
        assert "using_enrollments -> incentives_using_enrollments" in warnings[0], warnings
        assert "run_id -> incentives_run_id" in warnings[0], warnings


@pytest.mark.parametrize("engine", engine_params())
def test_a_mart_whose_column_type_changes_fails_its_contract(engine: str, project_copy: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The marts' contracts are enforced: a mart whose SQL changes a column's type fails the build
    with dbt's contract error naming the column, before its table is written. stack_coverage's
    overlap becomes a bigint (a numeric type of another kind: every engine), its set_coverage a
    decimal of another scale (DuckDB and Spark in-process; dbt-postgres and the Thrift server
    compare the type names without precision and scale)."""
    mart = project_copy / "models" / "marts" / "stack_coverage.sql"
    sql = mart.read_text()
    assert "        set_coverage,\n        overlap,\n" in sql
    mart.write_text(sql.replace("        set_coverage,\n        overlap,\n",
                                "        cast(set_coverage as decimal(38,4)) as set_coverage,\n"
                                "        cast(overlap as bigint) as overlap,\n"))
    with _own_inputs(engine, tmp_path, monkeypatch, "contract") as (own_schema, build_schema, _):
        extra = {"incentives_build_schema": build_schema} if build_schema else {}
        messages: dict[str, str] = {}
        ok, failed = invoke_dbt(["build", "--target", engine, "--empty", "--select", "+stack_coverage",
                                 "--exclude", "resource_type:test", "resource_type:unit_test",
                                 "--vars", json.dumps(dbt_vars(own_schema, **extra))], project_copy, messages=messages)
        assert not ok and failed == ["stack_coverage"], failed
        message = messages["stack_coverage"]
        assert "This model has an enforced contract that failed" in message, message
        mismatched = {line.split("|")[1].strip() for line in message.splitlines() if "data type mismatch" in line}
        # dbt-postgres and the Thrift server (whose column types come without precision and scale,
        # DECIMAL_TYPE) compare the type names only; the tables they create have the declared ones
        assert mismatched == ({"overlap"} if engine in ("postgres", "spark_thrift") else {"overlap", "set_coverage"}), message


def test_a_bad_input_row_fails_dbt_build_with_a_test_naming_it(project_copy: Path, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    printed: list[str] = []
    ok, failed = _build_own_tables(tmp_path, monkeypatch, project_copy, bad_amount=True, printed=printed)
    assert not ok
    assert failed == ["incentives_source_is_number_incentives_transactions_transactions_amount"]
    assert len(printed) == 1 and printed[0].startswith(
        "failing rows of test incentives_source_is_number_incentives_transactions_transactions_amount (is_number):"
        " 1 row\n    problem_value = 12,50, transaction_id = "), printed


INTEGRATION = PROJECT_DIR / "integration_tests"


def _fresh_package(root: Path) -> Path:
    """What a clone of this repository holds of the dbt package and its integration_tests/ (a
    checkout's seeds/ may hold a compile of its own, which an installed package must not have)."""
    package = root / "incentives"
    package.mkdir()
    for name in ("dbt_project.yml", "models", "macros"):
        source = PROJECT_DIR / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, package / name)
    (package / "seeds").mkdir()
    shutil.copy(PROJECT_DIR / "seeds" / "README.md", package / "seeds" / "README.md")
    shutil.copytree(EXAMPLES / "data", package / "examples" / "data")
    shutil.copytree(INTEGRATION, package / "integration_tests",
                    ignore=shutil.ignore_patterns("dbt_packages", "target", "logs"))
    return package


def _schema_for(engine: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> str:
    """The target's schema for a project's build: DuckDB's main in a file of its own, or a schema
    of this test on PostgreSQL."""
    if engine == "duckdb":
        monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", str(tmp_path / f"{name}.duckdb"))
        return "main"
    schema = f"{target_settings(engine)['schema']}_{name}"
    monkeypatch.setenv("INCENTIVES_PG_SCHEMA", schema)
    return schema


def _read_built(engine: str, tmp_path: Path, name: str, schema: str) -> dict[str, list[dict[str, Any]]]:
    if engine != "duckdb":
        return read_tables(engine, RESULT_TABLES, schema)
    con = duckdb.connect(str(tmp_path / f"{name}.duckdb"), read_only=True)
    try:
        return {t: [dict(zip([d[0] for d in con.description], r)) for r in
                    con.execute(f"select * from {schema}.{t}").fetchall()] for t in RESULT_TABLES}
    finally:
        con.close()


def _drop_schemas(engine: str, schemas: list[str]) -> None:
    if engine == "duckdb":
        return
    warehouse = connect(engine)
    try:
        for schema in schemas:
            warehouse.drop_schema(schema)
    finally:
        warehouse.close()


def _listed(resource_type: str, project_dir: Path) -> list[str]:
    from dbt.cli.main import dbtRunner

    listed = dbtRunner().invoke(["ls", "--resource-type", resource_type, "--project-dir", str(project_dir),
                                 "--profiles-dir", str(PROJECT_DIR / "profiles"), "--quiet"])
    assert listed.success, listed.exception
    return list(listed.result or [])


@pytest.mark.parametrize("engine", engine_params(DUCKDB_AND_POSTGRES))
def test_integration_tests_project_installs_the_package(engine: str, tmp_path: Path, run_results: dict[str, list],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """integration_tests/: a dbt project that installs this one by a local path (packages.yml), sets
    its vars, compiles the programs into its own seeds and runs `dbt deps && dbt build`: the same
    results as `incentives run`, the package's tables in the schemas it names, no unit test of the
    package in its build, a pass-through column in potential_earnings, no warning from dbt."""
    project = _fresh_package(tmp_path) / "integration_tests"
    with redirect_stdout(io.StringIO()):
        assert main(["compile", str(EXAMPLES / "programs.json"), "--out",
                     str(project / "seeds" / "incentive_rules")]) == 0
    schema = _schema_for(engine, monkeypatch, tmp_path, "it")
    try:
        warnings: list[str] = []
        for command in (["deps"], ["seed", "--target", engine], ["build", "--target", engine]):
            ok, failed = invoke_dbt(command, project, warnings)
            assert ok and not failed, (command, failed)
        assert not warnings, warnings
        if engine == "postgres":  # its dispatch config: the package's seed loader loaded its own seeds
            loaded = project / "target" / "run" / "incentives_integration_tests" / "seeds" / "incentive_rules"
            assert ") values\n%s" in (loaded / "incentives__offers.csv").read_text()
        assert not _listed("unit_test", project)  # the package's unit tests stay out
        built = _read_built(engine, tmp_path, "it", f"{schema}_incentives")
        assert all(r["source_transaction_id"] == r["transaction_id"] for r in built["potential_earnings"])
        for name in RESULT_TABLES:
            assert normalized(_without(built[name], "run_id", "source_transaction_id")) == run_results[name], name
    finally:
        _drop_schemas(engine, [schema + suffix for suffix in ("", "_incentives", "_incentives_internal", "_incentive_rules")])


# A team's project `agdata` as issue 25 describes it: models of its own named like the package's
# former ones, its own schema naming, a seed of its own named `catalogue`, the inputs under other
# names, no enrollments, and a catalogue of its own (a subset of the example's programs).
TEAM_PROGRAMS = (1, 3, 5)  # of examples/programs.json: standard, stepped, stacked, brand_count
TEAM_PROJECT = """\
name: agdata
version: "1.0.0"
config-version: 2
profile: incentives
seed-paths: ["seeds"]
model-paths: ["models"]
macro-paths: ["macros"]
test-paths: []
analysis-paths: []
snapshot-paths: []

vars:
  incentives:
    incentives_input_schema: null
    incentives_transactions_identifier: sales_lines
    incentives_products_identifier: sku_catalogue
    incentives_properties_identifier: entity_properties
    incentives_waivers_identifier: program_waivers
    incentives_prices_identifier: price_list
    incentives_using_enrollments: false
    incentives_transaction_passthrough_columns: [{name: transaction_id, alias: source_transaction_id}]
    incentives_unit_tests: true

seeds:
  agdata:
    +quote_columns: false
    inputs:
      transactions: {+alias: sales_lines}
      products: {+alias: sku_catalogue}
      properties: {+alias: entity_properties}
      waivers: {+alias: program_waivers}
      prices: {+alias: price_list}
    incentive_rules: {+schema: incentive_rules}

models:
  incentives:
    +schema: incentives
    staging: {+schema: incentives_internal}
    rules: {+schema: incentives_internal}
    intermediate: {+schema: incentives_internal}

unit_tests:
  incentives:
    +enabled: true
"""
# its schema naming: <target schema>__<custom schema> (dbt's default has one underscore)
TEAM_SCHEMA_MACRO = """\
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- if custom_schema_name is none -%}{{ target.schema }}{%- else -%}{{ target.schema }}__{{ custom_schema_name | trim }}{%- endif -%}
{%- endmacro %}
"""


@pytest.mark.parametrize("engine", engine_params(DUCKDB_AND_POSTGRES))
def test_a_team_project_gets_its_own_catalogue_results(engine: str, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A team's project installs the package by a local path and compiles a catalogue that is not
    the example's into its own seeds: dbt builds that catalogue's results (equal to `incentives
    run` of the same programs and inputs) with no warning, only the team's seeds load, the package's
    unit tests pass with a pass-through column set (on DuckDB), the team's schema naming places the package's
    tables, and the team's models `stg_products` and `stg_transactions` (nonsense here) and its
    seed `catalogue` are not read by the package."""
    package = _fresh_package(tmp_path)
    programs = json.loads((EXAMPLES / "programs.json").read_text())
    programs["programs"] = [programs["programs"][i] for i in TEAM_PROGRAMS]
    team_programs = tmp_path / "programs.json"
    team_programs.write_text(json.dumps(programs))

    database = tmp_path / "run.duckdb"
    with redirect_stdout(io.StringIO()):
        assert main(["run", "--programs", str(team_programs), "--data", str(EXAMPLES / "data"),
                     "--database", str(database)]) == 0
    expected = {name: normalized(_without(rows, "run_id")) for name, rows in read_results(database, RESULT_TABLES).items()}

    project = tmp_path / "agdata"
    (project / "models").mkdir(parents=True)
    (project / "macros").mkdir()
    # the package's unit tests in the team's build on DuckDB: what they check of the team's names and
    # pass-through column is the same SQL on PostgreSQL, whose own unit tests run in test_engines.py
    # (92 unit tests more on PostgreSQL: the case alone took 47.9 s with them, 25.8 s without)
    unit_tests_on = engine == "duckdb"
    (project / "dbt_project.yml").write_text(TEAM_PROJECT.replace("+enabled: true", f"+enabled: {str(unit_tests_on).lower()}"))
    (project / "packages.yml").write_text(f"packages:\n  - local: {package}\n")
    (project / "macros" / "generate_schema_name.sql").write_text(TEAM_SCHEMA_MACRO)
    (project / "models" / "stg_products.sql").write_text("select 'no_such_sku' as sku_key, 'no_brand' as brand_key\n")
    (project / "models" / "stg_transactions.sql").write_text("select 'T000001' as transaction_id, 0 as amount\n")
    shutil.copytree(EXAMPLES / "data", project / "seeds" / "inputs")
    (project / "seeds" / "inputs" / "enrollments.csv").unlink(missing_ok=True)
    (project / "seeds" / "catalogue.csv").write_text("sku_key,list_price\nno_such_sku,1.00\n")
    with redirect_stdout(io.StringIO()):
        assert main(["compile", str(team_programs), "--out", str(project / "seeds" / "incentive_rules")]) == 0

    schema = _schema_for(engine, monkeypatch, tmp_path, "agdata")
    try:
        warnings: list[str] = []
        ok, failed = invoke_dbt(["deps"], project, warnings)
        assert ok and not failed
        ok, failed = invoke_dbt(["build", "--target", engine], project, warnings)
        assert ok and not failed, failed
        assert not warnings, warnings
        seeds = _listed("seed", project)
        assert seeds and all(seed.startswith("agdata.") for seed in seeds), seeds  # none of the package's
        unit_tests = _listed("unit_test", project)
        assert ("unit_test:incentives.potential_earnings_writes_the_earning_rows" in unit_tests) == unit_tests_on, unit_tests
        built = _read_built(engine, tmp_path, "agdata", f"{schema}__incentives")
        assert built["potential_earnings"] and all(r["source_transaction_id"] == r["transaction_id"]
                                                   for r in built["potential_earnings"])
        assert {r["program_key"] for r in built["offer_results"]} == {programs["programs"][i]["key"] for i in range(3)}
        for name in RESULT_TABLES:
            assert normalized(_without(built[name], "run_id", "source_transaction_id")) == expected[name], name
    finally:
        _drop_schemas(engine, [schema + suffix for suffix in ("", "__incentives", "__incentives_internal",
                                                              "__incentive_rules")])


def test_readme_output_tables_match_the_contracts() -> None:
    """The README's column tables (Outputs) list the columns of the marts' contracts
    (models/marts/_marts.yml, the one declaration of the output tables: dbt enforces it), in their
    order; `run_id`, which every table has, may be left to the sentence that says so. Every column
    has a data_type, and the marts are the public models."""
    import re

    import yaml

    readme = (PROJECT_DIR / "README.md").read_text()
    outputs = readme.split("\n## Outputs\n", 1)[1].split("\n## ", 1)[0]
    documented: dict[str, list[str]] = {}
    for section in re.split(r"\n### ", outputs)[1:]:
        name = re.match(r"`(\w+)`", section).group(1)  # type: ignore[union-attr]
        rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| column ")]
        documented[name] = [c.strip() for row in rows for c in row.split("|")[1].split(",")]
    marts = yaml.safe_load((PROJECT_DIR / "models" / "marts" / "_marts.yml").read_text())["models"]
    declared = {m["name"]: [c["name"] for c in m["columns"]] for m in marts}
    assert set(documented) == set(declared) == {"qualification_results", "potential_earnings", "offer_results",
                                                "participant_opportunities", "stack_coverage", "run_warnings"}
    for name, columns in documented.items():
        expected = declared[name] if "run_id" in columns else [c for c in declared[name] if c != "run_id"]
        assert columns == expected, name
    assert all(c.get("data_type") for m in marts for c in m["columns"])
    project = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())["models"]["incentives"]
    assert project["marts"]["+access"] == "public" and project["marts"]["+contract"] == {"enforced": True}
    assert all(project[folder]["+access"] == "protected" for folder in ("staging", "rules", "intermediate", "semantic"))
