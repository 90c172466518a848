"""`incentives export`: the worked examples exported in the calculations-response shape give the
field names and values of the API reference's responses (tests/fixtures/reference_responses.json,
copied from the reference)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from compiler.cli import main
from compiler.export import file_name
from tests.harness import run_engine
from tests.test_worked_examples import PROGRAMS, SEASON, TABLES, _txn

REFERENCE = json.loads((Path(__file__).parent / "fixtures" / "reference_responses.json").read_text())

# the standard example of reference/strategies.txt: 3% of $50,000 in a local program
LOCAL = {
    "key": "corteva.2026.retailer.local.crop_protection", "time_periods": SEASON,
    "offers": [{
        "key": "corteva.2026.retailer.local.crop_protection.base", "strategy_key": "standard",
        "calculator_key": "percent_of_amount",
        "incentives": [{"period_key": "incentive_period", "transaction_type": "retailer_purchases_from_distribution",
                        "rates": [{"sku_key": "agri_shield_insecticide_2.5_gal_53551", "rate": 3.0,
                                   "measure": "percent"}]}]}],
}


def _export(programs: dict, tables: dict, workdir: Path) -> Path:
    run_engine(programs, tables, workdir)
    out = workdir / "export"
    assert main(["export", "--database", str(workdir / "results.duckdb"), "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _export(PROGRAMS, TABLES, tmp_path_factory.mktemp("export"))


@pytest.fixture(scope="module")
def exported_local(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference's standard example reuses the stepped example's transaction id: its own run."""
    tables = {"transactions": [_txn("01JAD80XDZGZNTYDRV4H56221W", "local_retailer",
                                    "agri_shield_insecticide_2.5_gal_53551", "100", "50000")],
              "products": [{"sku_key": "agri_shield_insecticide_2.5_gal_53551", "brand_key": "agri_shield"}]}
    return _export({"programs": [LOCAL]}, tables, tmp_path_factory.mktemp("export-local"))


@pytest.fixture(scope="module")
def exported_stepped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference's stepped example earns on agri_shield_insecticide_2.5_gal_53551 (its filters
    name both agri_shield SKUs) at a $50/gal program price."""
    program = copy.deepcopy(next(p for p in PROGRAMS["programs"] if p["key"] == "acme.2026.retailer.stepped"))
    program["offers"][0]["incentive"]["filters"][0]["sku_keys"] = [
        "agri_shield_insecticide_2.5_gal_53551", "agri_shield_insecticide_bulk_63374"]
    tables = {
        "transactions": [_txn("01JAD80XDZGZNTYDRV4H56221W", "stepped_retailer",
                              "agri_shield_insecticide_2.5_gal_53551", "1570", "86350"),
                         _txn("Q1", "stepped_retailer", "field_hammer_fungicide_1_gal_61492", "40", "2500")],
        "products": TABLES["products"],
        "prices": [{"sku_key": "agri_shield_insecticide_2.5_gal_53551", "price": "50", "start_date": "2025-09-01",
                    "end_date": ""}],
    }
    return _export({"programs": [program]}, tables, tmp_path_factory.mktemp("export-stepped"))


def _response(out: Path, entity: str) -> dict:
    return json.loads((out / file_name(entity)).read_text())


def test_one_file_per_participant(exported: Path) -> None:
    names = sorted(p.name for p in exported.iterdir())
    assert names == sorted(f"{e}.json" for e in (
        "grower_retailer", "plan_retailer", "retailer_a", "retailer_b", "stepped_retailer"))
    for name in names:
        assert set(json.loads((exported / name).read_text())) == {"qualification_results", "potential_earnings"}


def test_qualification_results_as_the_reference(exported: Path) -> None:
    assert _response(exported, "retailer_a")["qualification_results"] == REFERENCE["qualification_results"]


@pytest.mark.parametrize(("entity", "example"), [
    ("local_retailer", "standard"), ("stepped_retailer", "stepped"), ("grower_retailer", "stacked")])
def test_potential_earnings_as_the_reference(exported: Path, exported_local: Path, exported_stepped: Path,
                                             entity: str, example: str) -> None:
    out = {"standard": exported_local, "stepped": exported_stepped, "stacked": exported}[example]
    response = _response(out, entity)
    earnings = [e for e in response["potential_earnings"] if e["offer_key"] == REFERENCE[example]["offer_key"]]
    assert earnings == [REFERENCE[example]]
    # the same text, field order included, as a user diffing the two files sees it
    assert json.dumps(earnings[0]) == json.dumps(REFERENCE[example])


def test_one_participant(tmp_path: Path, exported: Path) -> None:
    database = exported.parent / "results.duckdb"
    assert main(["export", "--database", str(database), "--out", str(tmp_path), "--entity", "retailer_b"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["retailer_b.json"]
    assert (tmp_path / "retailer_b.json").read_text() == (exported / "retailer_b.json").read_text()


def test_unknown_participant_and_missing_database(tmp_path: Path, exported: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    database = exported.parent / "results.duckdb"
    assert main(["export", "--database", str(database), "--out", str(tmp_path), "--entity", "nobody"]) == 1
    assert "no participant 'nobody'" in capsys.readouterr().err
    assert main(["export", "--database", str(tmp_path / "none.duckdb"), "--out", str(tmp_path)]) == 1
    assert "no such DuckDB file" in capsys.readouterr().err


def test_file_names_are_safe() -> None:
    assert file_name("retailer_001") == "retailer_001.json"
    assert file_name("a/b c") == "a%2Fb%20c.json"
    assert file_name("..") == "%2E..json"
