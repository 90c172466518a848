"""Input data checks on typed (Parquet) and text (CSV) inputs: the same problems, located, whatever
shortcuts the typed columns allow."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from compiler.errors import DataError
from compiler.pipeline.load import load_inputs
from compiler.pipeline.validate_data import Source, Table, validate_inputs

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
        _, sources = load_inputs(con, data)
        with pytest.raises(DataError) as info:
            validate_inputs(con, sources)
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


def test_cheap_text_is_trimmed_text() -> None:
    """Table.text skips trim where it cannot change the value: the same as trimming every value."""
    values = ["", " ", "a", " a", "a ", "\t", "\ta", "a\n", "\u00a0", "a\u3000", "\u2003x", "é", " é ", None]
    values += [chr(i) for i in range(1, 0x3001)] + [f"x{chr(i)}" for i in range(1, 0x3001)]
    con = duckdb.connect()
    try:
        con.execute("create table t (c varchar)")
        con.executemany("insert into t values (?)", [[v] for v in values])
        text = Table(Source("t", Path("t.csv")), {"c": "VARCHAR"}).text("c")
        assert con.execute(f"select count(*) from t where {text} is distinct from nullif(trim(c), '')").fetchone()[0] == 0
    finally:
        con.close()


def test_header_only_files(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "transactions.csv").write_text(
        "transaction_id,entity_id,transaction_type,transaction_date,sku_key,quantity,uom_key,amount\n")
    (data / "products.csv").write_text("sku_key,brand_key\n")
    (data / "prices.csv").write_text("sku_key,price,start_date,end_date\n")
    con = duckdb.connect()
    try:
        counts, sources = load_inputs(con, data)
        validate_inputs(con, sources)
    finally:
        con.close()
    assert counts["transactions"] == counts["prices"] == 0


# what each check of the CLI is called among dbt's tests on the sources (macros/tests/input_checks.sql)
DBT_TEST_OF = {
    "empty value": "incentives.not_empty",
    "not a number": "incentives.is_number",
    "not a date": "incentives.is_date",
    "unknown transaction type": "accepted_values",
    "duplicate transaction_id": "unique",
    "SKU listed with different brands": "incentives.one_value_per_key",
    "unknown property level": "incentives.property_levels",
    "an entity-level property needs an entity_id": "incentives.property_levels",
    "a transaction-level property needs a transaction_id": "incentives.property_levels",
    "price period ends before it starts": "incentives.ends_after_start",
}
# checks about one column that dbt's test declares on another column of the same rows
DBT_COLUMN_OF = {("properties", "entity_id"): "level", ("properties", "transaction_id"): "level"}


def test_every_input_check_of_the_cli_is_a_dbt_test_on_the_sources() -> None:
    """`dbt build` alone refuses what `incentives run` refuses: every registered check of
    compiler/validate_data.py is declared as a data test on its source column."""
    import yaml

    from compiler.pipeline.build import PROJECT_DIR
    from compiler.pipeline.load import INPUT_COLUMNS
    from compiler.pipeline.validate_data import CHECKS

    tables = {name: Table(Source(name, Path(f"{name}.csv")), {c: "VARCHAR" for c in columns})
              for name, columns in INPUT_COLUMNS.items()}
    cli = {(c.table.name, DBT_COLUMN_OF.get((c.table.name, c.column), c.column), DBT_TEST_OF[c.message])
           for fn in CHECKS for c in fn(tables)}
    declared = set()
    sources = [source for path in sorted((PROJECT_DIR / "models" / "staging").glob("*/_*.yml"))
               for source in yaml.safe_load(path.read_text()).get("sources", [])]
    assert len(sources) == len(INPUT_COLUMNS), [s["name"] for s in sources]
    for source in sources:
        for table in source["tables"]:
            for column in table.get("columns", []):
                for test in column.get("data_tests", []):
                    declared.add((table["name"], column["name"], test if isinstance(test, str) else next(iter(test))))
    assert cli, "no CLI check found"
    assert cli <= declared, sorted(cli - declared)
