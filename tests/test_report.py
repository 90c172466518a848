"""`incentives report` of the example: its totals are the result tables' and the page refers to
nothing outside itself (no script, stylesheet, font or image from the network)."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from compiler.cli import main
from compiler.run.build import PROJECT_DIR
from compiler.runner import run

EXAMPLES = PROJECT_DIR / "examples"


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    workdir = tmp_path_factory.mktemp("report")
    database = workdir / "example.duckdb"
    run(EXAMPLES / "programs.json", EXAMPLES / "data", database, say=lambda _: None)
    out = workdir / "report.html"
    assert main(["report", "--database", str(database), "--out", str(out)]) == 0
    return database, out.read_text()


def _number(text: str) -> Decimal:
    return Decimal(text.replace(",", "").replace("$", ""))


def test_totals(example: tuple[Path, str]) -> None:
    database, page = example
    totals = {k: _number(v) for k, v in re.findall(r'data-total="([a-z_]+)">([^<]*)<', page)}
    con = duckdb.connect(str(database), read_only=True)
    try:
        participants, qualified, incentive, potential = con.execute(
            "select count(distinct entity_id), sum(case when qualified then 1 else 0 end), sum(incentive_amount),"
            " sum(potential_if_qualified) from main.offer_results").fetchone()
        (at_stake,) = con.execute("select sum(amount_at_stake) from main.participant_opportunities").fetchone()
    finally:
        con.close()
    assert totals == {"participants": participants, "qualified_count": qualified, "incentive_amount": incentive,
                      "potential_if_qualified": potential, "amount_at_stake": at_stake}
    # the example's summary (README): 20 participants, 121 qualified, 235,854.61 earned
    assert (totals["participants"], totals["qualified_count"], totals["incentive_amount"]) == (
        20, 121, Decimal("235854.61"))


def test_offer_rows_and_charts(example: tuple[Path, str]) -> None:
    _, page = example
    assert len(re.findall(r"<tr data-offer=", page)) == 11
    assert len(re.findall(r'<tr class="program"', page)) == 6
    assert "<svg" in page and 'aria-label="amount at stake by gap"' in page
    assert len(re.findall(r"data-entity=", page)) > 0


def test_nothing_outside_the_file(example: tuple[Path, str]) -> None:
    _, page = example
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert not re.search(r"@import", page, re.I)
    assert not re.search(r"url\(\s*[\"']?\s*(https?:)?//", page, re.I)
    assert not re.search(r"<script|<link|<iframe|<img|@font-face", page, re.I)
    assert "http://" not in page and "https://" not in page


def test_missing_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--database", str(tmp_path / "none.duckdb"), "--out", str(tmp_path / "r.html")]) == 1
    assert "no such DuckDB file" in capsys.readouterr().err
