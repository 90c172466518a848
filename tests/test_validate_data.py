"""Input data checks on typed (Parquet) and text (CSV) inputs: the same problems, located, whatever
shortcuts the typed columns allow."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from compiler.errors import DataError
from compiler.run.load import load_and_validate

TRANSACTIONS = """
select * from (values
    ('T1', 'e1', 'retailer_sales_to_growers', date '2026-01-05', 's1', 1.00, 'gal', 10.00),
    ('T2', null, 'retailer_sales_to_growers', date '2026-01-05', 's1', 1.00, 'gal', 123456789012345.67),
    (' T1', 'e1', 'barter', null, 's1', 1.00, 'gal', 99999999999999.99),
    ('T4', '  ', ' retailer_sales_to_growers ', date '2026-01-05', 's1', null, 'gal', 1.00)
) v(transaction_id, entity_id, transaction_type, transaction_date, sku_key, quantity, uom_key, amount)"""


def _problems(data: Path) -> list[str]:
    con = duckdb.connect()
    try:
        with pytest.raises(DataError) as info:
            load_and_validate(con, data)
    finally:
        con.close()
    return [i.render() for i in info.value.issues]


def _write(data: Path, suffix: str) -> None:
    data.mkdir()
    con = duckdb.connect()
    try:
        typed = f"select transaction_id, entity_id, transaction_type, transaction_date, sku_key, " \
                f"cast(quantity as decimal(18,2)) as quantity, uom_key, cast(amount as decimal(18,2)) as amount " \
                f"from ({TRANSACTIONS})"
        fmt = "(format parquet)" if suffix == ".parquet" else "(header)"
        con.execute(f"copy ({typed}) to '{data / ('transactions' + suffix)}' {fmt}")
    finally:
        con.close()
    (data / "products.csv").write_text("sku_key,brand_key\ns1,b1\n")


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_typed_and_text_inputs_report_the_same(tmp_path: Path, suffix: str) -> None:
    _write(tmp_path / "data", suffix)
    name = "transactions" + suffix
    line = (lambda row: f" (line {row + 1})") if suffix == ".csv" else (lambda row: "")
    expected = {
        f"{name} row 2{line(2)} column entity_id: empty value; got None; expected a non-empty value",
        f"{name} row 4{line(4)} column entity_id: empty value; got '  '; expected a non-empty value",
        f"{name} row 3{line(3)} column transaction_date: empty value; got None; expected a non-empty value",
        f"{name} row 4{line(4)} column quantity: empty value; got None; expected a non-empty value",
        f"{name} row 2{line(2)} column amount: not a number; got '123456789012345.67'; "
        "expected a decimal number with at most 14 digits before the point",
        f"{name} row 1{line(1)} column transaction_id: duplicate transaction_id; got 'T1'; expected each transaction_id once",
        f"{name} row 3{line(3)} column transaction_id: duplicate transaction_id; got ' T1'; expected each transaction_id once",
    }
    problems = _problems(tmp_path / "data")
    assert expected <= set(problems), "\n".join(sorted(set(problems) - expected))
    assert [p for p in problems if "barter" in p] == [
        f"{name} row 3{line(3)} column transaction_type: unknown transaction type; got 'barter'; expected one of "
        "retailer_purchases_from_distribution, retailer_sales_to_growers, contractor_purchases_from_distribution, "
        "distributor_sales_to_retail, inventory"]
    assert len(problems) == len(expected) + 1


def test_more_rows_than_examples(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    rows = "".join(f"T{i},{'' if i % 2 else 'e1'},inventory,2026-01-05,s1,1,gal,1\n" for i in range(20))
    (data / "transactions.csv").write_text(
        "transaction_id,entity_id,transaction_type,transaction_date,sku_key,quantity,uom_key,amount\n" + rows
        + "T3,e1,inventory,2026-01-05,s1,1,gal,1\n" * 7)
    (data / "products.csv").write_text("sku_key,brand_key\ns1,b1\n")
    problems = _problems(data)
    assert "transactions.csv column entity_id: empty value: 5 more rows like the ones above; " \
           "expected a non-empty value" in problems
    assert "transactions.csv column transaction_id: duplicate transaction_id: 3 more rows like the ones above; " \
           "expected each transaction_id once" in problems
    assert len([p for p in problems if " row " in p and "column entity_id" in p]) == 5


def test_header_only_files(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "transactions.csv").write_text(
        "transaction_id,entity_id,transaction_type,transaction_date,sku_key,quantity,uom_key,amount\n")
    (data / "products.csv").write_text("sku_key,brand_key\n")
    (data / "prices.csv").write_text("sku_key,price,start_date,end_date\n")
    con = duckdb.connect()
    try:
        counts, _ = load_and_validate(con, data)
    finally:
        con.close()
    assert counts["transactions"] == counts["prices"] == 0


def test_the_cli_runs_every_data_test_on_the_sources() -> None:
    """One definition: the input checks of `incentives run` are the data tests declared on the
    sources (as dbt compiles them), each with the words of its message; the staging models' own
    tests are not among them. The vendor's statements are not among these inputs: the CLI reads
    them from JSON and checks each field where it reads it, located by file and JSON path
    (compiler/statements.py); their source's tests serve `dbt build` alone."""
    import yaml

    from compiler.run.build import PROJECT_DIR, run_vars
    from compiler.run.validate_data import compile_input_checks

    declared = set()
    for path in sorted((PROJECT_DIR / "models" / "staging").glob("*/_*.yml")):
        if path.parent.name == "incentives_statements":
            continue
        for source in yaml.safe_load(path.read_text()).get("sources", []):
            for table in source["tables"]:
                for column in table.get("columns", []):
                    for test in column.get("data_tests", []):
                        name = test if isinstance(test, str) else next(iter(test))
                        declared.add((table["name"], column["name"], name.removeprefix("incentives.")))
    # the scenarios' checks are compiled when their inputs are on (as `incentives run` does when
    # their files are in --data)
    checks = compile_input_checks(":memory:", {**run_vars(False), "incentives_using_scenarios": True,
                                               "incentives_using_scenario_properties": True})
    assert {(c.table, c.column, c.test) for c in checks} == declared
    assert all(c.problem and c.expected and '"memory"."raw".' in c.sql for c in checks)


def test_duckdb_text_is_trimmed_text() -> None:
    """On DuckDB a text value is trimmed only where trim can change it (macros/tests/input_checks.sql,
    duckdb___input_text): the same empty values as trimming every value."""
    from compiler.run.build import run_vars
    from compiler.run.validate_data import compile_input_checks

    check, = [c for c in compile_input_checks(":memory:", run_vars(False))
              if (c.table, c.column, c.test) == ("transactions", "transaction_id", "not_empty")]
    values = ["", " ", "a", " a", "a ", "\t", "\ta", "a\n", "\u00a0", "a\u3000", "\u2003x", "é", " é ", None]
    values += [chr(i) for i in range(1, 0x3001)] + [f"x{chr(i)}" for i in range(1, 0x3001)]
    con = duckdb.connect()
    try:
        con.execute("create schema raw")
        con.execute("create table raw.transactions (_row bigint, transaction_id varchar)")
        con.executemany("insert into raw.transactions values (?, ?)", [[i, v] for i, v in enumerate(values)])
        got = {r[0] for r in con.execute(f"select _row from ({check.sql})").fetchall()}
        trimmed = {r[0] for r in con.execute(
            "select _row from raw.transactions where nullif(trim(transaction_id), '') is null").fetchall()}
    finally:
        con.close()
    assert got == trimmed and len(trimmed) > 3


def test_the_cli_runs_the_rule_tables_data_tests(tmp_path: Path) -> None:
    """One definition: the checks `incentives run` runs on the rule tables it loaded (and leaves
    out of its `dbt build`) are the data tests of the seeds' properties file as dbt compiles them;
    they pass on compiled tables and name the test a damaged table fails."""
    from compiler.errors import RunError
    from compiler.run.build import PROJECT_DIR, run_vars
    from compiler.compile.programs import compile_programs
    from compiler.run.load import load_rule_tables
    from compiler.run.validate_data import check_rule_tables, compile_rule_checks

    import yaml

    checks = compile_rule_checks(":memory:", run_vars(False))
    from compiler.rule_tables import seeds_yaml

    seeds = yaml.safe_load(seeds_yaml())["seeds"]
    declared = sum(len(s.get("data_tests", [])) + sum(len(c.get("data_tests", [])) for c in s["columns"]) for s in seeds)
    assert len(checks) == declared > 10
    assert all('"memory"."main_rules".' in c.sql and c.severity == "error" for c in checks)
    compile_programs(PROJECT_DIR / "examples" / "programs.json", tmp_path / "rules")
    con = duckdb.connect()
    try:
        load_rule_tables(con, tmp_path / "rules", "main_rules")
        assert check_rule_tables(con, checks) == []
        con.execute("insert into main_rules.incentives__offers select * from main_rules.incentives__offers limit 1")
        con.execute("update main_rules.incentives__catalogue set status = 'failed'")
        with pytest.raises(RunError) as info:
            check_rule_tables(con, checks)
    finally:
        con.close()
    message = str(info.value)
    assert "test unique_incentives__offers_offer_key: 1 failing row" in message
    assert "test incentives_last_compile_succeeded_incentives__catalogue_status: 1 failing row" in message
