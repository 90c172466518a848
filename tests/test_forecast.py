"""The season-end forecast end to end (docs/forecast.md), values computed by hand: a stepped offer
on SKU A (tiers 50,000 -> 10%, 100,000 -> 15%; threshold and earning filters SKU A; period
2025-09-01..2026-08-31), as_of 2026-03-31; a qualification met only with the projection; a
yoy_amount_index evaluated on the projected season against the actual prior one."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from tests.harness import DUCKDB_AND_POSTGRES, engine_params, normalized, run_engine
from tests.oracle.evaluator import evaluate_forecast
from tests.test_worked_examples import BUY, _txn

AS_OF = "2026-03-31"
SEASON = {"key": "season", "label": "2026", "start_date": "2025-09-01", "end_date": "2026-08-31"}
PRIOR = {"key": "prior", "label": "2025", "start_date": "2024-09-01", "end_date": "2025-08-31"}


def _filters(sku: str, period: str = "season") -> list[dict]:
    return [{"period_key": period, "sku_keys": [sku], "transaction_type": BUY}]


def _program(key: str, offer: dict, qualifications: list[dict] | None = None, qualifier: str | None = None) -> dict:
    return {"key": key, "label": key, "attributes": [{"type": "manufacturer", "value": "acme", "label": "Acme"}],
            "time_periods": [SEASON, PRIOR], "qualifications": qualifications or [], "qualifier": qualifier,
            "offers": [offer]}


def _offer(key: str, sku: str, strategy: str, incentive: dict) -> dict:
    return {"key": key, "label": key, "attributes": [], "sku_keys": [sku], "time_periods": [],
            "transaction_types": [BUY], "calculator_key": "percent_of_amount", "strategy_key": strategy,
            **incentive}


def _standard(sku: str, rate: int) -> dict:
    return {"incentives": [{"label": "rate", "period_key": "season", "transaction_type": BUY,
                            "rates": [{"sku_key": sku, "rate": rate, "measure": "percent"}]}]}


STEPPED = _offer("stepped_a", "sku_a", "stepped", {"incentive": {
    "filters": _filters("sku_a"),
    "threshold_definition": {"type": "aggregated_amount", "filters": _filters("sku_a")},
    "rates": [{"key": "15_percent", "threshold": 100000, "rate": 15, "measure": "percent"},
              {"key": "10_percent", "threshold": 50000, "rate": 10, "measure": "percent"}]}})
MINIMUM = _offer("minimum_b", "sku_b", "standard", _standard("sku_b", 5))
GROWTH = _offer("growth_c", "sku_c", "standard", _standard("sku_c", 2))
PROGRAMS = {"programs": [
    _program("acme.stepped", STEPPED),
    _program("acme.minimum", MINIMUM, [{"type": "aggregated_amount", "key": "min_b", "label": "min",
                                        "operator": "greater_than_or_equal_to", "value": 100000,
                                        "filters": _filters("sku_b"), "attributes": []}], "min_b"),
    _program("acme.growth", GROWTH, [{"type": "yoy_amount_index", "key": "yoy_c", "label": "yoy",
                                      "operator": "greater_than_or_equal_to", "value": 110,
                                      "numerator": {"filters": _filters("sku_c")},
                                      "denominator": {"filters": _filters("sku_c", "prior")}, "attributes": []}],
             "yoy_c"),
]}


TABLES = {
    "transactions": [
        # P, seasonal: g = 60,000 / 50,000 = 1.2; 2025-05-20 projected to 2026-05-20 at 48,000
        _txn("P1", "P", "sku_a", "1", "20000", "2025-10-15"), _txn("P2", "P", "sku_a", "1", "40000", "2026-02-10"),
        _txn("P3", "P", "sku_a", "1", "30000", "2024-10-15"), _txn("P4", "P", "sku_a", "1", "20000", "2025-02-10"),
        _txn("P5", "P", "sku_a", "1", "40000", "2025-05-20"),
        # Q, recent: L = 153, window [2025-10-30, 2026-03-31]: 2026-01-10 projected to 2026-06-12
        _txn("Q1", "Q", "sku_a", "1", "30000", "2026-01-10"),
        # R, seasonal with g = 1: 60,000 + the projected 50,000 meets min_b (100,000)
        _txn("R1", "R", "sku_b", "1", "60000", "2024-12-01"), _txn("R2", "R", "sku_b", "1", "50000", "2025-05-01"),
        _txn("R3", "R", "sku_b", "1", "60000", "2026-02-01"),
        # Y, seasonal with g = 1.2: the season 60,000 + 60,000 projected against the prior 100,000: 120
        _txn("Y1", "Y", "sku_c", "1", "50000", "2024-10-01"), _txn("Y2", "Y", "sku_c", "1", "50000", "2025-06-01"),
        _txn("Y3", "Y", "sku_c", "1", "60000", "2025-10-01"),
    ],
    "products": [{"sku_key": s, "brand_key": s} for s in ("sku_a", "sku_b", "sku_c")],
}
_RUNS: dict[str, dict] = {}


@pytest.fixture(scope="module", params=engine_params(DUCKDB_AND_POSTGRES))
def forecast(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    engine = request.param
    if engine not in _RUNS:
        workdir = tmp_path_factory.mktemp(f"forecast-{engine}")
        results = run_engine(PROGRAMS, TABLES, workdir, target=engine, extra_tables=("forecast_results",),
                             forecast={"incentives_using_forecast": True, "incentives_as_of": AS_OF})
        _RUNS[engine] = {(r["entity_id"], r["offer_key"]): r for r in results["forecast_results"]}
    return _RUNS[engine]


def test_the_oracle_agrees(forecast: dict) -> None:
    """Every row of forecast_results is the oracle's (tests/oracle/evaluator.py), computed apart."""
    expected = evaluate_forecast(PROGRAMS, TABLES, as_of=AS_OF)["forecast_results"]
    actual = [{k: v for k, v in r.items() if k != "run_id"} for r in forecast.values()]
    assert normalized(actual) == normalized(expected)


def _figures(row: dict) -> tuple:
    return (row["method"], row["earned_to_date"], row["projected_qualified"], row["projected_tier_key"],
            row["projected_season_amount"], row["accrual_to_date"], row["accrual_minus_earned"])


def test_seasonal_participant_accrues_at_the_projected_tier(forecast: dict) -> None:
    row = forecast[("P", "stepped_a")]
    assert (row["as_of"].isoformat(), row["horizon"].isoformat(), row["growth_factor"]) == (AS_OF, "2026-08-31", D("1.2"))
    assert _figures(row) == ("seasonal", D("6000.00"), True, "15_percent", D("16200.00"), D("9000.00"), D("3000.00"))


def test_recent_participant_repeats_its_last_days(forecast: dict) -> None:
    row = forecast[("Q", "stepped_a")]
    assert row["growth_factor"] == D("1")
    assert _figures(row) == ("recent", D("0.00"), True, "10_percent", D("6000.00"), D("3000.00"), D("3000.00"))


def test_a_qualification_met_with_the_projection_makes_the_accrual_positive(forecast: dict) -> None:
    """R: today 60,000 of 100,000 (unqualified, 0.00); with 2025-05-01's 50,000 projected, 110,000:
    qualified, the season pays 5% of 110,000 and the actual 60,000 accrue 3,000.00."""
    row = forecast[("R", "minimum_b")]
    assert _figures(row) == ("seasonal", D("0.00"), True, None, D("5500.00"), D("3000.00"), D("3000.00"))


def test_yoy_growth_on_the_projected_season_against_the_actual_prior_one(forecast: dict) -> None:
    """Y: today 60,000 against the prior season's 100,000 (index 60, unqualified); projected
    (g = 60,000 / 50,000) the season reaches 120,000: index 120 >= 110, 2% of it 2,400.00, of the
    actual 60,000 1,200.00."""
    row = forecast[("Y", "growth_c")]
    assert row["growth_factor"] == D("1.2")
    assert _figures(row) == ("seasonal", D("0.00"), True, None, D("2400.00"), D("1200.00"), D("1200.00"))


@pytest.mark.parametrize("engine", engine_params(DUCKDB_AND_POSTGRES))
def test_history_keeps_every_run_and_the_accrual_changes(engine: str, tmp_path) -> None:
    """Two runs, the second a month later with one more purchase of P (2026-04-15, 10,000): P's
    g = 70,000 / 50,000, its 2025-05-20 row projected at 56,000, 15% on the actual 70,000: the
    accrual goes from 9,000.00 to 10,500.00. offer_results_history holds both runs, accrual_changes
    the 1,500.00; a third run refused for bad data leaves both as they were; a fourth run appends
    its rows and compares itself with the second. The second run's other
    --as-of reaches the models as data (run_context), so dbt reuses the first run's saved parse."""
    from compiler.errors import IncentivesError
    from compiler.run.build import PROJECT_DIR, dbt_target_path

    tables = ("forecast_results", "offer_results_history", "accrual_changes")
    first = run_engine(PROGRAMS, TABLES, tmp_path, target=engine, extra_tables=tables,
                       forecast={"incentives_using_forecast": True, "incentives_as_of": AS_OF})
    (run_1,) = {r["run_id"] for r in first["forecast_results"]}
    saved_parse = PROJECT_DIR / dbt_target_path(engine) / "partial_parse.msgpack"
    parsed = saved_parse.stat().st_mtime_ns
    later = {**TABLES, "transactions": [*TABLES["transactions"], _txn("P6", "P", "sku_a", "1", "10000", "2026-04-15")]}
    second = run_engine(PROGRAMS, later, tmp_path, target=engine, extra_tables=tables,
                        forecast={"incentives_using_forecast": True, "incentives_as_of": "2026-04-30"})
    assert saved_parse.stat().st_mtime_ns == parsed, "another --as-of made dbt parse the project again"
    (run_2,) = {r["run_id"] for r in second["forecast_results"]}
    history = {(r["run_id"], r["entity_id"], r["offer_key"]): r for r in second["offer_results_history"]
               if r["run_id"] in (run_1, run_2)}
    assert history[(run_1, "P", "stepped_a")]["accrual_to_date"] == D("9000.00")
    assert history[(run_2, "P", "stepped_a")]["accrual_to_date"] == D("10500.00")
    assert history[(run_2, "P", "stepped_a")]["as_of"].isoformat() == "2026-04-30"
    assert len(history) == len(first["offer_results"]) + len(second["offer_results"])
    changes = {(r["entity_id"], r["offer_key"]): r for r in second["accrual_changes"]}
    p = changes[("P", "stepped_a")]
    assert (p["previous_run_id"], p["run_id"], p["previous_accrual_to_date"], p["accrual_change"]) == \
        (run_1, run_2, D("9000.00"), D("1500.00"))
    assert changes[("Q", "stepped_a")]["accrual_change"] == D("0.00")
    bad = {**later, "transactions": [*later["transactions"], _txn("X1", "P", "sku_a", "1", "1", "2026-13-01")]}
    with pytest.raises(IncentivesError):
        run_engine(PROGRAMS, bad, tmp_path, target=engine, extra_tables=tables,
                   forecast={"incentives_using_forecast": True})
    from tests.harness import read_target_results

    after = read_target_results(engine, tmp_path, tables)
    assert normalized(after["offer_results_history"]) == normalized(second["offer_results_history"])
    # a fourth run (the second's data and as_of again): the history keeps both runs' rows as they
    # were and gains its own, and accrual_changes compares it with the second
    third = run_engine(PROGRAMS, later, tmp_path, target=engine, extra_tables=tables,
                       forecast={"incentives_using_forecast": True, "incentives_as_of": "2026-04-30"})
    (run_3,) = {r["run_id"] for r in third["forecast_results"]}
    assert normalized([r for r in third["offer_results_history"] if r["run_id"] != run_3]) == \
        normalized(second["offer_results_history"])
    assert len([r for r in third["offer_results_history"] if r["run_id"] == run_3]) == len(third["offer_results"])
    p = {(r["entity_id"], r["offer_key"]): r for r in third["accrual_changes"]}[("P", "stepped_a")]
    assert (p["previous_run_id"], p["run_id"], p["previous_accrual_to_date"], p["accrual_change"]) == \
        (run_2, run_3, D("10500.00"), D("0.00"))
    if engine == "duckdb":  # the HTML report's forecast section, from the same file
        from compiler.report import _money, report

        page = report(tmp_path / "results.duckdb", tmp_path / "report.html").read_text()
        accrual = sum(r["accrual_to_date"] for r in second["forecast_results"] if r["offer_key"] == "stepped_a")
        row = page.split('<tr data-forecast="stepped_a">', 1)[1].split("</tr>", 1)[0]
        assert _money(accrual) in row and 'id="forecast"' in page
        assert f'data-run="{run_1}"' in page and f'data-run="{run_2}"' in page
