"""Vendor statements reconciled with the engine (docs/reconciliation.md), end to end from
`incentives export` of the example: each statement altered by hand as a vendor's statement would
differ, imported with `incentives import-statements`, then read in the reconciliation marts and
through `incentives reconcile`. Bad statement files are refused, located, with nothing changed."""

from __future__ import annotations

import copy
import csv
import hashlib
import json
import shutil
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest

from compiler.cli import main
from compiler.run.build import run_dbt
from compiler.runner import run
from tests.harness import SQL_ENGINES, engine_params, normalized, read_target_results

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "examples" / "programs.json"
DATA = ROOT / "examples" / "data"
RECONCILIATION = ("reconciliation_earnings", "reconciliation_qualifications", "reconciliation_offers")


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The example's results and their export (one <entity_id>.json per participant)."""
    work = tmp_path_factory.mktemp("reconcile")
    database = work / "example.duckdb"
    run(PROGRAMS, DATA, database, say=lambda _: None)
    assert main(["export", "--database", str(database), "--out", str(work / "export")]) == 0
    return database, work / "export"


def _rows(database: Path, sql: str, params: list[Any] | None = None) -> list[dict[str, Any]]:
    con = duckdb.connect(str(database), read_only=True)
    try:
        cursor = con.execute(sql, params or [])
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, r)) for r in cursor.fetchall()]
    finally:
        con.close()


def _statements(folder: Path) -> dict[str, dict[str, Any]]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def _write(statements: dict[str, dict[str, Any]], folder: Path) -> Path:
    folder.mkdir(parents=True)
    for entity, response in statements.items():
        (folder / f"{entity}.json").write_text(json.dumps(response, indent=1))
    return folder


def _imported(example: tuple[Path, Path], statements: Path, tmp_path: Path, *flags: str) -> Path:
    database = tmp_path / "results.duckdb"
    shutil.copyfile(example[0], database)
    assert main(["import-statements", str(statements), "--database", str(database), *flags]) == 0
    return database


def _cents(value: Any) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def test_unaltered_export_reconciles_to_matched(example: tuple[Path, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    database = _imported(example, example[1], tmp_path)
    statuses = _rows(database, "select status, count(*) as n from reconciliation_earnings group by status")
    engine_rows = _rows(database, "select count(*) as n from potential_earnings")[0]["n"]
    assert statuses == [{"status": "matched", "n": engine_rows}]
    offers = _rows(database, "select * from reconciliation_offers")
    assert len(offers) == len(_rows(database, "select * from offer_results"))
    assert all(o["variance"] == 0 and o["agrees"] and o["explanation"] is None for o in offers)
    assert {o["engine_qualified"] == o["statement_qualified"] for o in offers} == {True}
    assert all(q["agrees"] for q in _rows(database, "select agrees from reconciliation_qualifications"))
    capsys.readouterr()
    assert main(["reconcile", "--database", str(database), "--out", str(tmp_path / "claims.csv")]) == 0
    out = capsys.readouterr().out
    assert "offers agreeing               220" in out and "underpaid                    0.00" in out
    assert len(list(csv.reader(open(tmp_path / "claims.csv")))) == 1  # the header only


def _earnings(statement: dict[str, Any], offer: str) -> list[dict[str, Any]]:
    return [e for e in statement["potential_earnings"] if e["offer_key"] == offer]


@pytest.fixture(scope="module")
def altered(example: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The export with one alteration per participant, imported: the results file and what was altered."""
    database, export = example
    statements = _statements(export)
    done: dict[str, Any] = {}
    standard = {r["offer_key"] for r in _rows(database, "select distinct offer_key from potential_earnings "
                                                        "where strategy_key = 'standard'")}

    def first_standard(entity: str) -> dict[str, Any]:
        return next(e for e in statements[entity]["potential_earnings"] if e["offer_key"] in standard)

    # retailer_001: a row removed
    removed = first_standard("retailer_001")
    statements["retailer_001"]["potential_earnings"].remove(removed)
    done["removed"] = removed
    # retailer_003: a row's amount lowered by one cent
    lowered = first_standard("retailer_003")
    lowered["incentive_amount"] = float(_cents(lowered["incentive_amount"]) - Decimal("0.01"))
    done["lowered"] = lowered
    # retailer_004: a row added for a transaction the engine does not pay
    added = copy.deepcopy(first_standard("retailer_004"))
    added.update(transaction_id="not_paid_by_the_engine", incentive_amount=12.34)
    statements["retailer_004"]["potential_earnings"].append(added)
    done["added"] = added
    # retailer_002: the stepped offer at 6% paid at the lower 4% tier
    stepped = "agri_shield.2026.retailer.national.crop_protection.insecticide_accelerator"
    lower_key = "4_percent_greater_than_or_equal_to_40000"
    for e in _earnings(statements["retailer_002"], stepped):
        assert e["incentive_rate_key"] == "6_percent_greater_than_or_equal_to_80000"
        e.update(incentive_rate_key=lower_key, incentive_rate_value=4.0, offer_sku_pay_rate=0.04,
                 incentive_amount=float(_cents(Decimal(str(e["incentivized_amount"])) * Decimal("0.04"))))
    done["tier"] = (stepped, lower_key, len(_earnings(statements["retailer_002"], stepped)))
    # retailer_006: a qualification of the program qualifier (one term: every branch needs it)
    # reported unmet, and the offer's rows absent
    offer, key = _unmet_candidate(database, "retailer_006")
    for q in statements["retailer_006"]["qualification_results"]:
        if q["offer_key"] == offer and q["qualification_key"] == key:
            q["met"] = False
    statements["retailer_006"]["potential_earnings"] = [
        e for e in statements["retailer_006"]["potential_earnings"] if e["offer_key"] != offer]
    done["unmet"] = (offer, key)
    # a participant and an offer the engine does not know
    stranger = copy.deepcopy(statements["retailer_005"])
    statements["stranger_999"] = {"qualification_results": [], "potential_earnings": stranger["potential_earnings"][:2]}
    unknown = copy.deepcopy(first_standard("retailer_005"))
    unknown["offer_key"] = "someone.else.2026.offer"
    statements["retailer_005"]["potential_earnings"].append(unknown)
    done["unknown_offer"] = unknown

    folder = _write(statements, tmp_path_factory.mktemp("altered") / "statements")
    done["folder"] = folder
    results = tmp_path_factory.mktemp("altered-db") / "results.duckdb"
    shutil.copyfile(database, results)
    assert main(["import-statements", str(folder), "--database", str(results)]) == 0
    return results, done


def _unmet_candidate(database: Path, entity: str) -> tuple[str, str]:
    """An offer of `entity` that is qualified and pays, and a met, unwaived qualification every
    term of its program's qualifier needs (a one-term qualifier)."""
    rows = _rows(database, """
        with one_term as (
            select program_key, min(qualification_key) as qualification_key
            from main_internal.stg_incentives__rules_qualifier_terms where offer_key is null
            group by program_key having count(distinct term_id) = 1)
        select o.offer_key, t.qualification_key
        from offer_results o
        join one_term t on t.program_key = o.program_key
        join qualification_results q on q.entity_id = o.entity_id and q.offer_key = o.offer_key
            and q.qualification_key = t.qualification_key and q.qualification_level = 'program'
        where o.entity_id = ? and o.qualified and o.incentive_amount > 0 and q.met and not q.waived
        order by o.offer_key limit 1""", [entity])
    assert rows, f"the example has no candidate for {entity}"
    return rows[0]["offer_key"], rows[0]["qualification_key"]


def _offer(database: Path, entity: str, offer: str) -> dict[str, Any]:
    (row,) = _rows(database, "select * from reconciliation_offers where entity_id = ? and offer_key = ?", [entity, offer])
    return row


def _line(database: Path, entity: str, offer: str, transaction: str) -> dict[str, Any]:
    (row,) = _rows(database, "select * from reconciliation_earnings where entity_id = ? and offer_key = ? "
                             "and transaction_id = ?", [entity, offer, transaction])
    return row


def test_row_removed_is_missing_in_statement(altered: tuple[Path, dict[str, Any]]) -> None:
    database, done = altered
    removed = done["removed"]
    line = _line(database, "retailer_001", removed["offer_key"], removed["transaction_id"])
    assert line["status"] == "missing_in_statement"
    assert line["incentive_amount_difference"] == _cents(removed["incentive_amount"])
    offer = _offer(database, "retailer_001", removed["offer_key"])
    assert offer["variance"] == _cents(removed["incentive_amount"])
    assert offer["missing_in_statement_rows"] == 1 and not offer["agrees"]
    assert offer["explanation"] == (f"1 transaction the engine pays is missing in the statement "
                                    f"({_cents(removed['incentive_amount'])})")


def test_amount_lowered_by_a_cent_differs(altered: tuple[Path, dict[str, Any]]) -> None:
    database, done = altered
    lowered = done["lowered"]
    line = _line(database, "retailer_003", lowered["offer_key"], lowered["transaction_id"])
    assert (line["status"], line["differing_column"], line["incentive_amount_difference"]) == (
        "amount_differs", "incentive_amount", Decimal("0.01"))
    offer = _offer(database, "retailer_003", lowered["offer_key"])
    assert offer["variance"] == Decimal("0.01")
    assert offer["explanation"] == "1 line differs in amount (0.01), first by incentive_amount"


def test_row_added_is_missing_in_engine(altered: tuple[Path, dict[str, Any]]) -> None:
    database, done = altered
    added = done["added"]
    line = _line(database, "retailer_004", added["offer_key"], "not_paid_by_the_engine")
    assert (line["status"], line["engine_incentive_amount"], line["incentive_amount_difference"]) == (
        "missing_in_engine", None, Decimal("-12.34"))
    offer = _offer(database, "retailer_004", added["offer_key"])
    assert offer["variance"] == Decimal("-12.34")
    assert offer["explanation"] == "1 statement line is not paid by the engine (-12.34)"


def test_lower_tier_is_explained_by_the_tier(altered: tuple[Path, dict[str, Any]]) -> None:
    database, done = altered
    stepped, lower_key, count = done["tier"]
    lines = _rows(database, "select * from reconciliation_earnings where entity_id = 'retailer_002' and offer_key = ?",
                  [stepped])
    assert len(lines) == count
    assert {(r["status"], r["differing_column"], r["incentive_rate_key"], r["statement_incentive_rate_key"])
            for r in lines} == {("amount_differs", "incentive_rate_value", "6_percent_greater_than_or_equal_to_80000",
                                 lower_key)}
    offer = _offer(database, "retailer_002", stepped)
    assert (offer["engine_tier_key"], offer["statement_tier_key"]) == ("6_percent_greater_than_or_equal_to_80000",
                                                                       lower_key)
    assert offer["variance"] == sum(r["incentive_amount_difference"] for r in lines) > 0
    assert offer["explanation"] == (f"tier: the statement pays {count} lines at {lower_key} where the engine pays "
                                    f"6_percent_greater_than_or_equal_to_80000 ({offer['variance']})")


def test_unmet_qualification_is_named(altered: tuple[Path, dict[str, Any]]) -> None:
    database, done = altered
    offer_key, key = done["unmet"]
    offer = _offer(database, "retailer_006", offer_key)
    assert (offer["engine_qualified"], offer["statement_qualified"]) == (True, False)
    assert offer["variance"] == offer["engine_incentive_amount"] > 0
    assert offer["missing_in_statement_rows"] > 0 and offer["qualifications_differing"] == 1
    assert offer["explanation"].startswith(f"qualification {key} (program level) is met in the engine, not in the "
                                           "statement (actual ")
    assert offer["explanation"].endswith(f"the offer is qualified in the engine only (variance {offer['variance']})")
    (q,) = _rows(database, "select * from reconciliation_qualifications where entity_id = 'retailer_006' "
                           "and offer_key = ? and qualification_key = ?", [offer_key, key])
    assert (q["status"], q["differing_column"], q["engine_met"], q["statement_met"]) == ("differs", "met", True, False)


def test_unknown_participant_and_offer_are_listed(altered: tuple[Path, dict[str, Any]]) -> None:
    database, done = altered
    stranger = _rows(database, "select * from reconciliation_offers where entity_id = 'stranger_999'")
    assert stranger and all(not r["participant_known"] and r["missing_in_engine_rows"] > 0 for r in stranger)
    assert stranger[0]["explanation"].startswith("the engine has no participant stranger_999")
    unknown = _offer(database, "retailer_005", done["unknown_offer"]["offer_key"])
    assert (unknown["participant_known"], unknown["offer_known"], unknown["missing_in_engine_rows"]) == (True, False, 1)
    assert unknown["explanation"].startswith("the engine has no offer someone.else.2026.offer in its programs")


def test_everything_else_still_matches(altered: tuple[Path, dict[str, Any]]) -> None:
    database, _ = altered
    untouched = _rows(database, "select * from reconciliation_offers where entity_id not in "
                                "('retailer_001', 'retailer_002', 'retailer_003', 'retailer_004', 'retailer_005', "
                                "'retailer_006', 'stranger_999')")
    assert untouched and all(r["agrees"] and r["variance"] == 0 for r in untouched)


def test_reconcile_prints_summary_and_writes_claims(altered: tuple[Path, dict[str, Any]], tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    database, done = altered
    claims = tmp_path / "claims.csv"
    capsys.readouterr()
    assert main(["reconcile", "--database", str(database), "--out", str(claims)]) == 0
    out = capsys.readouterr().out
    offers = _rows(database, "select * from reconciliation_offers")
    under = sum(o["variance"] for o in offers if o["variance"] > 0)
    over = -sum(o["variance"] for o in offers if o["variance"] < 0)
    assert f"underpaid            {under:>12,.2f}" in out and f"overpaid             {over:>12,.2f}" in out
    assert "participants compared          21  (1 unknown to the engine)" in out
    with open(claims) as fh:
        lines = list(csv.DictReader(fh))
    differing = _rows(database, "select count(*) as n from reconciliation_earnings where status <> 'matched'")[0]["n"]
    assert len(lines) == differing
    assert {r["status"] for r in lines} == {"amount_differs", "missing_in_statement", "missing_in_engine"}
    assert all(r["explanation"] for r in lines)


def test_report_has_a_reconciliation_section(example: tuple[Path, Path], altered: tuple[Path, dict[str, Any]],
                                             tmp_path: Path) -> None:
    database, done = altered
    assert main(["report", "--database", str(database), "--out", str(tmp_path / "report.html")]) == 0
    page = (tmp_path / "report.html").read_text()
    assert 'id="reconciliation"' in page
    stepped = done["tier"][0]
    assert f'data-reconciled="retailer_002|{stepped}"' in page and "tier: the statement pays" in page
    offers = _rows(database, "select count(*) filter (where agrees) as a, count(*) as n from reconciliation_offers")[0]
    assert f'data-reconciliation="offers_agreeing">{offers["a"]:,} / {offers["n"]:,}<' in page
    # without statements, no section
    assert main(["report", "--database", str(example[0]), "--out", str(tmp_path / "plain.html")]) == 0
    assert 'id="reconciliation"' not in (tmp_path / "plain.html").read_text()


def test_dbt_unit_tests_of_the_reconciliation(altered: tuple[Path, dict[str, Any]]) -> None:
    """The reconciliation's dbt unit tests (models/reconciliation/_reconciliation.yml), on a results
    file with the reconciliation built (dbt reads the mocked inputs' column types from it)."""
    database, _ = altered
    lines: list[str] = []
    run_dbt(["test", "--select", "test_type:unit,path:models/reconciliation", "--vars",
             json.dumps({"incentives_unit_tests": True, "incentives_using_statements": True})], database, lines.append)
    passed = [line for line in lines if " unit_test " in line and line.rstrip().endswith("pass")]
    assert len(passed) == 4, lines


# ----------------------------------------------------------------------------- bad statements


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_bad_statement_files_are_refused_located(example: tuple[Path, Path], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    statements = _statements(example[1])
    statements["retailer_001"]["potential_earnings"][2]["incentive_amount"] = "a lot"
    statements["retailer_002"]["qualification_results"][1]["met"] = "yes"
    del statements["retailer_003"]["potential_earnings"][0]["transaction_id"]
    folder = _write(statements, tmp_path / "bad")
    (folder / "retailer_004.json").write_text('{"potential_earnings": [')
    database = tmp_path / "results.duckdb"
    shutil.copyfile(example[0], database)
    before = _digest(database)
    capsys.readouterr()
    assert main(["import-statements", str(folder), "--database", str(database)]) == 1
    err = capsys.readouterr().err
    assert "The statements have problems; nothing was changed (4 problems)" in err
    assert ("retailer_001.json at potential_earnings[2].incentive_amount: not a number; got 'a lot'; "
            "expected a number") in err
    assert "retailer_002.json at qualification_results[1].met: wrong type; got 'yes'; expected true or false" in err
    assert ("retailer_003.json at potential_earnings[0].transaction_id: missing field; "
            "expected a value for transaction_id") in err
    assert "retailer_004.json: invalid JSON; got 'Expecting value: line 1 column 25 (char 24)'" in err
    assert "Traceback" not in err
    assert _digest(database) == before
    assert not database.with_name(database.name + ".building").exists()

    # quarantined: the four statements left out, the others imported
    assert main(["import-statements", str(folder), "--database", str(database), "--skip-invalid-rows"]) == 3
    rejected = _rows(database, "select * from rejected_rows where table_name like 'statement%' order by file")
    assert [(r["table_name"], r["file"], r["column_name"]) for r in rejected] == [
        ("statement_earnings", "retailer_001.json", "potential_earnings[2].incentive_amount"),
        ("statement_qualifications", "retailer_002.json", "qualification_results[1].met"),
        ("statement_earnings", "retailer_003.json", "potential_earnings[0].transaction_id"),
        ("statements", "retailer_004.json", None)]
    compared = {r["entity_id"] for r in _rows(database, "select distinct entity_id from reconciliation_offers")}
    assert len(compared) == 16 and not compared & {"retailer_001", "retailer_002", "retailer_003", "retailer_004"}


def test_json_lines_statements(example: tuple[Path, Path], tmp_path: Path) -> None:
    lines = [json.dumps({"entity_id": entity, **response}) for entity, response in _statements(example[1]).items()]
    path = tmp_path / "statements.jsonl"
    path.write_text("\n".join(lines) + "\n")
    database = _imported(example, path, tmp_path)
    assert {r["status"] for r in _rows(database, "select status from reconciliation_earnings")} == {"matched"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(lines[0] + "\n" + json.dumps({"potential_earnings": []}) + "\n")
    assert main(["import-statements", str(bad), "--database", str(database)]) == 1


# ----------------------------------------------------------------------------- engines


@pytest.mark.parametrize("engine", engine_params(SQL_ENGINES))
def test_reconciliation_identical_on_every_engine(engine: str, example: tuple[Path, Path],
                                                  altered: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """`incentives run --statements` with the altered statements gives the rows of import-statements."""
    database, done = altered
    run(PROGRAMS, DATA, tmp_path / "results.duckdb", say=lambda _: None, target=engine, statements=done["folder"])
    got = read_target_results(engine, tmp_path, RECONCILIATION)
    con = duckdb.connect(str(database), read_only=True)
    try:
        for table in RECONCILIATION:
            cursor = con.execute(f"select * from {table}")
            names = [d[0] for d in cursor.description]
            expected = [dict(zip(names, r)) for r in cursor.fetchall()]
            strip = lambda rows: [{k: v for k, v in r.items() if k != "run_id"} for r in rows]  # noqa: E731
            assert normalized(strip(got[table])) == normalized(strip(expected)), table
    finally:
        con.close()
