"""`dbt seed` on PostgreSQL through this project's loader (macros/postgres_seeds.sql, the
dispatched postgres__load_csv_rows) loads exactly what dbt-postgres's own loader loads.

The compiled example's seeds, with rows added that carry the awkward values (text with commas,
quotes, a newline, a backslash, spaces, non-ASCII; empty fields of every type; the open dates;
ten decimal places; booleans), are seeded twice on PostgreSQL: by a copy of the project with the
loader, and by a copy without it (dbt-postgres's default__load_csv_rows). Both give the same
tables: the same columns and types, the same rows (EXCEPT ALL both ways, nulls matching nulls),
and the awkward text as the CSV holds it.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from compiler.run.build import PROJECT_DIR
from compiler.targets.warehouse import connect, target_settings
from tests.harness import engine_params
from tests.test_dbt_package import invoke_dbt

AWKWARD_TEXT = ['a,b', 'say "hi"', "it's", "two\nlines", "back\\slash", "  padded  ", "crème brûlée", "null", ""]

# rows appended to the example's seeds: column -> value (the others empty)
EXTRA_ROWS: dict[str, list[dict[str, str]]] = {
    "incentives__offers": [{"program_key": text, "offer_key": f"awkward_{i}", "strategy_key": text, "calculator_key": "",
                "threshold_filter_id": str(i) if i % 2 else "", "catalogue_hash": "0c16557c35439f73"}
               for i, text in enumerate(AWKWARD_TEXT)],
    "incentives__qualifications": [
        {"qualification_id": "-9223372036854775807", "program_key": "p", "qualification_key": "q1",
         "qualification_value": "0.0000000001", "is_boolean": "true", "divisor": "-12345678901234567890.1234567891",
         "has_brand_list": "", "catalogue_hash": "x"},
        {"qualification_id": "9223372036854775807", "program_key": "p,\"q\"", "qualification_key": "q2",
         "qualification_value": "", "is_boolean": "false", "divisor": "1e3", "has_brand_list": "FALSE",
         "catalogue_hash": "x"},
    ],
    "incentives__time_buckets": [
        {"bucket_id": "900", "start_date": "0001-01-01", "end_date": "9999-12-31", "catalogue_hash": "x"},
        {"bucket_id": "901", "start_date": "2024-02-29", "end_date": "", "catalogue_hash": ""},
    ],
}


def _project(root: Path, with_loader: bool) -> Path:
    copy = root / ("with_loader" if with_loader else "dbt_postgres_loader")
    copy.mkdir()
    for name in ("dbt_project.yml", "models", "macros", "seeds"):
        source = PROJECT_DIR / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, copy / name)
    (copy / "tests" / "dbt").mkdir(parents=True)
    if not with_loader:
        (copy / "macros" / "postgres_seeds.sql").unlink()
    for table, rows in EXTRA_ROWS.items():
        path = copy / "seeds" / f"{table}.csv"
        with open(path, newline="") as fh:
            header = next(csv.reader(fh))
        with open(path, "a", newline="") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            for row in rows:
                assert set(row) <= set(header), (table, set(row) - set(header))
                writer.writerow([row.get(column, "") for column in header])
    return copy


@pytest.mark.parametrize("engine", engine_params(("postgres",)))
def test_postgres_seeds_load_as_with_dbt_postgres_loader(engine: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    base = target_settings(engine)["schema"]
    schemas = {True: f"{base}_seedfast", False: f"{base}_seeddefault"}
    warehouse = connect(engine)
    try:
        for with_loader, schema in schemas.items():
            project = _project(tmp_path, with_loader)
            monkeypatch.setenv("INCENTIVES_PG_SCHEMA", schema)
            ok, failed = invoke_dbt(["seed", "--target", engine, "--full-refresh"], project)
            assert ok and not failed, (with_loader, failed)
            loaded = (project / "target" / "run" / "incentives" / "seeds" / "incentives__offers.csv").read_text()
            assert (") values\n%s" in loaded) == with_loader, loaded[:300]  # which loader ran
        fast, default = (f"{schemas[w]}_rules" for w in (True, False))
        tables = sorted(path.stem for path in (PROJECT_DIR / "seeds").glob("*.csv"))
        assert warehouse.tables(fast) and sorted(warehouse.tables(fast)) == sorted(warehouse.tables(default))

        def columns(schema: str, table: str) -> list[tuple]:
            return warehouse.fetch(
                "select column_name, data_type, numeric_precision, numeric_scale, character_maximum_length "
                f"from information_schema.columns where table_schema = '{schema}' and table_name = '{table}' "
                "order by ordinal_position")

        for table in tables:
            assert columns(fast, table) == columns(default, table), table
            count = warehouse.fetch(f"select count(*) from {fast}.{table}")[0][0]
            assert count == warehouse.fetch(f"select count(*) from {default}.{table}")[0][0], table
            assert count > len(EXTRA_ROWS.get(table, [])), table
            for a, b in ((fast, default), (default, fast)):
                extra = warehouse.fetch(f"select * from {a}.{table} except all select * from {b}.{table}")
                assert not extra, (table, a, extra[:3])
        offers = dict(warehouse.fetch(f"select offer_key, program_key from {fast}.incentives__offers "
                                      "where offer_key like 'awkward_%'"))
        expected = {f"awkward_{i}": text for i, text in enumerate(AWKWARD_TEXT)}
        # dbt reads an empty field (and the text null) as NULL, with either loader
        assert offers == {k: (None if v in ("", "null") else v) for k, v in expected.items()}
    finally:
        for schema in schemas.values():
            for suffix in ("", "_rules"):
                warehouse.drop_schema(schema + suffix)
        warehouse.close()
