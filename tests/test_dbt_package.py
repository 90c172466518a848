"""`dbt build` alone, as a team runs it from a scheduler: the rule tables as seeds, the inputs as
sources pointed anywhere by vars, dbt's own tests refusing bad rules and bad input rows.

- After `incentives compile`, `dbt build` with only the profile and vars equals `incentives run`
  on every engine, with the inputs in a schema of one's own under other table names, no
  enrollments table (`using_enrollments: false`) and a pass-through column reaching
  potential_earnings.
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

from compiler.targets import warehouse as engines
from compiler.cli import main
from compiler.pipeline.build import PROJECT_DIR, _release_dbt_database
from compiler.pipeline.load import load_inputs
from compiler.pipeline.record import RESULT_TABLES
from tests.harness import engine_params, normalized, read_results

EXAMPLES = PROJECT_DIR / "examples"
# the example's inputs under the names a team's warehouse gives them (no enrollments table)
OWN_NAMES = {"transactions": "sales_lines", "products": "sku_catalogue", "properties": "entity_properties",
             "waivers": "program_waivers", "prices": "price_list"}
PASSTHROUGH = "invoice_number"


def dbt_vars(own_schema: str, **extra: Any) -> dict[str, Any]:
    return {"input_schema": own_schema, "using_enrollments": False,
            "incentives_transaction_passthrough_columns": [PASSTHROUGH],
            **{f"incentives_{name}_identifier": own for name, own in OWN_NAMES.items()}, **extra}


def invoke_dbt(args: list[str], project_dir: Path = PROJECT_DIR, messages: dict[str, str] | None = None,
               printed: list[str] | None = None) -> tuple[bool, list[str]]:
    """dbt in-process: (success, the names of the nodes that failed or errored); `messages`
    receives each such node's message, `printed` what the project printed (print())."""
    from dbt.cli.main import dbtRunner

    failed: list[str] = []

    def on_event(event: object) -> None:
        info = getattr(event, "info", None)
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


@pytest.mark.parametrize("engine", engine_params())
def test_dbt_build_alone_equals_incentives_run(engine: str, tmp_path: Path, run_results: dict[str, list],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with redirect_stdout(io.StringIO()):  # what seeds/ already holds: the compiled example
        assert main(["compile", str(EXAMPLES / "programs.json")]) == 0
    with _own_inputs(engine, tmp_path, monkeypatch, "alone") as (own_schema, build_schema, database):
        extra = {"build_schema": build_schema} if build_schema else {}
        ok, failed = invoke_dbt(["build", "--target", engine, "--exclude", "test_type:unit",
                                 "--vars", json.dumps(dbt_vars(own_schema, **extra))])
        assert ok and not failed, failed
        if engine == "duckdb":
            built = read_results(database, RESULT_TABLES)
        else:
            built = engines.read_tables(engine, RESULT_TABLES, build_schema)
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
        settings = engines.target_settings(engine)
        own_schema, build_schema = f"{settings['schema']}_sales", f"{settings['schema']}_{name}"
        warehouse = engines.connect(engine, settings)
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


@pytest.fixture()
def project_copy(tmp_path: Path) -> Path:
    """The dbt project (with the compiled example's seeds) in a folder of its own, to damage."""
    copy = tmp_path / "project"
    copy.mkdir()
    for name in ("dbt_project.yml", "models", "macros", "seeds"):
        source = PROJECT_DIR / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, copy / name)
    (copy / "tests" / "dbt").mkdir(parents=True)
    return copy


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
    terms = project_copy / "seeds" / "qualifier_terms.csv"
    lines = terms.read_text().splitlines()
    fields = lines[1].split(",")
    fields[3] = "no_such_qualification"  # qualification_key of the first term
    terms.write_text("\n".join([lines[0], ",".join(fields), *lines[2:]]) + "\n")
    rates = project_copy / "seeds" / "standard_rates.csv"
    rates.write_text(rates.read_text() + rates.read_text().splitlines()[1] + "\n")  # a rate twice
    printed: list[str] = []
    ok, failed = _build_own_tables(tmp_path, monkeypatch, project_copy, printed=printed)
    assert not ok
    assert sorted(failed) == ["incentives_qualifier_terms_name_qualifications",
                              "incentives_unique_combination_standard_rates_offer_key__incentive_rate_key__sku_key"]
    # what is wrong, with the offending key, printed once per failed test after the build
    # (macros/tests/failing_rows.sql)
    assert len(printed) == 2, printed
    terms, rates = sorted(printed)
    assert terms.startswith("failing rows of test incentives_qualifier_terms_name_qualifications (a qualifier term"
                            " names a qualification its program or offer does not define): 1 row\n"), terms
    assert f"term_id = {fields[2]}, qualification_key = no_such_qualification" in terms, terms
    assert rates.startswith("failing rows of test incentives_unique_combination_standard_rates_offer_key__"
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
    assert failed == ["incentives_last_compile_succeeded_catalogue_status"]


@pytest.mark.parametrize("engine", engine_params(("duckdb", "postgres", "spark")))
def test_a_mart_whose_column_type_changes_fails_its_contract(engine: str, project_copy: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The marts' contracts are enforced: a mart whose SQL changes a column's type fails the build
    with dbt's contract error naming the column, before its table is written. stack_coverage's
    overlap becomes a bigint (a numeric type of another kind: every engine), its set_coverage a
    decimal of another scale (DuckDB and Spark; dbt-postgres compares the type names without
    precision and scale, and the table it creates has the declared ones)."""
    mart = project_copy / "models" / "marts" / "stack_coverage.sql"
    sql = mart.read_text()
    assert "        set_coverage,\n        overlap,\n" in sql
    mart.write_text(sql.replace("        set_coverage,\n        overlap,\n",
                                "        cast(set_coverage as decimal(38,4)) as set_coverage,\n"
                                "        cast(overlap as bigint) as overlap,\n"))
    with _own_inputs(engine, tmp_path, monkeypatch, "contract") as (own_schema, build_schema, _):
        extra = {"build_schema": build_schema} if build_schema else {}
        messages: dict[str, str] = {}
        ok, failed = invoke_dbt(["build", "--target", engine, "--empty", "--select", "+stack_coverage",
                                 "--exclude", "resource_type:test", "resource_type:unit_test", "--vars", json.dumps(dbt_vars(own_schema, **extra))], project_copy, messages)
        assert not ok and failed == ["stack_coverage"], failed
        message = messages["stack_coverage"]
        assert "This model has an enforced contract that failed" in message, message
        mismatched = {line.split("|")[1].strip() for line in message.splitlines() if "data type mismatch" in line}
        assert mismatched == ({"overlap"} if engine == "postgres" else {"overlap", "set_coverage"}), message


def test_a_bad_input_row_fails_dbt_build_with_a_test_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    printed: list[str] = []
    ok, failed = _build_own_tables(tmp_path, monkeypatch, bad_amount=True, printed=printed)
    assert not ok
    assert failed == ["incentives_source_is_number_incentives_transactions_transactions_amount"]
    assert len(printed) == 1 and printed[0].startswith(
        "failing rows of test incentives_source_is_number_incentives_transactions_transactions_amount (is_number):"
        " 1 row\n    problem_value = 12,50, transaction_id = "), printed


INTEGRATION = PROJECT_DIR / "integration_tests"


@pytest.mark.parametrize("engine", engine_params(("duckdb", "postgres")))
def test_integration_tests_project_installs_the_package(engine: str, tmp_path: Path, run_results: dict[str, list],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """integration_tests/: a dbt project that installs this one by a local path (packages.yml), sets
    its vars, compiles the programs into its own seeds and runs `dbt deps && dbt build`: the same
    results as `incentives run`, the package's tables in the schemas it names, no unit test of the
    package in its build, a pass-through column in potential_earnings."""
    with redirect_stdout(io.StringIO()):
        assert main(["compile", str(EXAMPLES / "programs.json"), "--out",
                     str(INTEGRATION / "seeds" / "incentive_rules")]) == 0
    if engine == "duckdb":
        database = tmp_path / "integration.duckdb"
        monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", str(database))
        schema = "main"
    else:
        schema = f"{engines.target_settings(engine)['schema']}_it"
        monkeypatch.setenv("INCENTIVES_PG_SCHEMA", schema)
    suffixes = ("", "_incentives", "_incentives_internal", "_incentive_rules", "_rules")
    try:
        for command in (["deps"], ["seed", "--target", engine], ["build", "--target", engine]):
            ok, failed = invoke_dbt(command, INTEGRATION)
            assert ok and not failed, (command, failed)
        from dbt.cli.main import dbtRunner

        listed = dbtRunner().invoke(["ls", "--resource-type", "unit_test", "--project-dir", str(INTEGRATION),
                                     "--profiles-dir", str(PROJECT_DIR / "profiles"), "--quiet"])
        assert listed.success and not listed.result, listed.result  # the package's unit tests stay out
        if engine == "duckdb":
            con = duckdb.connect(str(database), read_only=True)
            built = {t: [dict(zip([d[0] for d in con.description], r)) for r in
                         con.execute(f"select * from main_incentives.{t}").fetchall()] for t in RESULT_TABLES}
            con.close()
        else:
            built = engines.read_tables(engine, RESULT_TABLES, f"{schema}_incentives")
        assert all(r["source_transaction_id"] == r["transaction_id"] for r in built["potential_earnings"])
        for name in RESULT_TABLES:
            assert normalized(_without(built[name], "run_id", "source_transaction_id")) == run_results[name], name
    finally:
        if engine != "duckdb":
            warehouse = engines.connect(engine)
            for suffix in suffixes:
                warehouse.drop_schema(schema + suffix)
            warehouse.close()


def test_no_rejoin_of_upstream_concepts() -> None:
    """dbt-project-evaluator's "rejoin of upstream concepts": no model C reads both a model A and a
    model B that reads A when C is B's only reader (B would belong inside C, or A's concept is
    joined twice). Stacked coverage is computed once (int_stack_coverage) and read by its
    earnings, stack_coverage and offer_results; offer_results reads the pairs' qualifiers and tiers
    through int_offer_opportunities, which reads the earning rows of potential_earnings and of
    int_offer_opportunities. The graph is read from the models' literal refs (also those passed
    to the strategies' macros)."""
    import re

    ref = re.compile(r"""\bref\(\s*['"](\w+)['"]\s*\)""")
    parents = {path.stem: set(ref.findall(path.read_text())) for path in (PROJECT_DIR / "models").rglob("*.sql")}
    children: dict[str, set[str]] = {}
    for child, refs in parents.items():
        for parent in refs:
            children.setdefault(parent, set()).add(child)
    assert parents["int_earnings_stacked"] >= {"int_stack_coverage"}
    rejoins = {(c, b) for c, refs in parents.items() for b in refs for a in refs
               if a in parents.get(b, set()) and children.get(b) == {c}}
    # known, kept: the brand concern's one model (docs/architecture.md, "Rejoins")
    assert rejoins <= {("int_qualification_measures", "int_brand_counts")}, rejoins
    assert not any(c == "offer_results" or b == "int_stack_coverage" for c, b in rejoins)


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
