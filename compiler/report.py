"""`incentives report`: one self-contained HTML page of a run's results that works offline (inline
CSS and inline SVG, no script, no font or image from anywhere): totals per program and offer,
qualified counts, per participant a progress bar to each stepped offer's next tier with the gap
and the uplift, and a chart of the amount at stake by gap (table participant_opportunities); the what-if
scenarios when the run had some; with a forecast, per offer earned to date against the accrual and the
projected season amount, and a chart of the accrual over the runs of offer_results_history; when vendor
statements were imported, their reconciliation (compiler/reconcile.py, report_section).
"""

from __future__ import annotations

import html
from decimal import Decimal
from pathlib import Path
from typing import Any, Optional

from .errors import IncentivesError
from .export import RESULTS, open_results
from .reconcile import report_section

# gap buckets of the chart (upper bounds, in the gap's own unit), then "more" and "unknown"
GAP_BUCKETS = (Decimal(100), Decimal(1000), Decimal(5000), Decimal(25000), Decimal(100000))

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; margin: 2rem;
       max-width: 75rem;
       color: #1f2933; background: #fff; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .3rem; }
.muted { color: #616e7c; font-size: .9rem; }
.cards { display: flex; flex-wrap: wrap; gap: 1rem; margin: 1rem 0; }
.card { border: 1px solid #d9e2ec; border-radius: 6px; padding: .7rem 1rem; min-width: 10rem; }
.card .value { font-size: 1.3rem; font-weight: 600; } .card .label { color: #616e7c; font-size: .85rem; }
table { border-collapse: collapse; font-size: .9rem; margin: .5rem 0; max-width: 100%; }
th, td { border-bottom: 1px solid #e4e7eb; padding: .3rem .6rem; text-align: left; overflow-wrap: anywhere; }
td.key { max-width: 22rem; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.program td { background: #f0f4f8; font-weight: 600; }
.bar { vertical-align: middle; }
.legend span { display: inline-block; width: .8rem; height: .8rem; margin: 0 .3rem 0 1rem; vertical-align: middle; }
"""

COLORS = {"qualification": "#d64545", "next_tier": "#2680c2"}


def _money(x: Optional[Decimal]) -> str:
    return "" if x is None else f"{x:,.2f}"


def _number(x: Optional[Decimal]) -> str:
    if x is None:
        return ""
    text = f"{x:,.4f}".rstrip("0").rstrip(".")
    return text


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _rows(con: Any, sql: str) -> list[dict[str, Any]]:
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def _threshold_units(con: Any) -> dict[str, str]:
    """offer_key -> '$' for stepped offers whose threshold is an aggregated amount (from the rule
    table the run built, when it is in the file)."""
    try:
        rows = _rows(con, "select offer_key, threshold_type from main_internal.stg_incentives__rules_offers")
    except Exception:
        return {}
    return {r["offer_key"]: "$" for r in rows if r["threshold_type"] == "aggregated_amount"}


def _bucket(gap: Optional[Decimal]) -> str:
    if gap is None:
        return "unknown"
    for bound in GAP_BUCKETS:
        if gap <= bound:
            return f"≤ {bound:,}"
    return f"> {GAP_BUCKETS[-1]:,}"


def _stake_chart(opportunities: list[dict[str, Any]]) -> str:
    """A horizontal stacked bar chart (inline SVG): amount at stake per gap bucket and next step."""
    labels = [f"≤ {b:,}" for b in GAP_BUCKETS] + [f"> {GAP_BUCKETS[-1]:,}", "unknown"]
    sums = {label: {"qualification": Decimal(0), "next_tier": Decimal(0)} for label in labels}
    for r in opportunities:
        sums[_bucket(r["gap"])][r["gap_source"]] += r["amount_at_stake"]
    biggest = max((s["qualification"] + s["next_tier"] for s in sums.values()), default=Decimal(0)) or Decimal(1)
    left, width, row = 110, 520, 30
    parts = [f'<svg width="{left + width + 140}" height="{row * len(labels) + 30}" '
             'role="img" aria-label="amount at stake by gap">']
    for i, label in enumerate(labels):
        y = 10 + i * row
        x = float(left)
        parts.append(f'<text x="{left - 8}" y="{y + 16}" text-anchor="end" font-size="12">{_e(label)}</text>')
        for source in ("qualification", "next_tier"):
            w = float(sums[label][source] / biggest) * width
            if w > 0:
                parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row - 8}" fill="{COLORS[source]}">'
                             f'<title>{_e(source)}: {_money(sums[label][source])}</title></rect>')
                x += w
        total = sums[label]["qualification"] + sums[label]["next_tier"]
        parts.append(f'<text x="{x + 6:.1f}" y="{y + 16}" font-size="12">{_money(total)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _progress(value: Optional[Decimal], target: Decimal) -> str:
    """A progress bar (inline SVG) of the threshold value towards the next tier's threshold."""
    share = 0.0 if value is None or target <= 0 else max(0.0, min(1.0, float(value / target)))
    w = 160
    return (f'<svg class="bar" width="{w}" height="14">'
            f'<rect width="{w}" height="14" rx="3" fill="#e4e7eb"/>'
            f'<rect width="{share * w:.1f}" height="14" rx="3" fill="#2680c2"/>'
            f'<text x="{w / 2}" y="11" font-size="10" text-anchor="middle" fill="#102a43">{share:.0%}</text></svg>')


def render(con: Any) -> str:
    """The report's HTML from an open DuckDB connection to a run's results."""
    offers = _rows(con, """
        select program_key, offer_key, count(*) as participants,
            sum(case when qualified then 1 else 0 end) as qualified_count,
            sum(incentive_amount) as incentive_amount,
            sum(potential_if_qualified) as potential_if_qualified,
            sum(coalesce(next_tier_uplift, 0)) as next_tier_uplift
        from main.offer_results
        group by program_key, offer_key
        order by program_key, offer_key""")
    opportunities = _rows(con, "select * from main.participant_opportunities order by entity_id, offer_key")
    tiers = _rows(con, """
        select entity_id, offer_key, qualified, threshold_value, current_tier_key, next_tier_key,
            next_tier_threshold, gap_to_next_tier, incentive_amount, next_tier_incentive_amount, next_tier_uplift
        from main.offer_results
        where next_tier_key is not null
        order by entity_id, offer_key""")
    (participants,) = con.execute("select count(distinct entity_id) from main.offer_results").fetchone()
    units = _threshold_units(con)

    total = {
        "incentive_amount": sum((o["incentive_amount"] for o in offers), Decimal(0)),
        "potential_if_qualified": sum((o["potential_if_qualified"] for o in offers), Decimal(0)),
        "qualified_count": sum(o["qualified_count"] for o in offers),
        "amount_at_stake": sum((o["amount_at_stake"] for o in opportunities), Decimal(0)),
    }

    out = ['<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           "<title>Incentives report</title>", f"<style>{CSS}</style></head><body>",
           "<h1>Incentives report</h1>",
           '<p class="muted">What each participant earns, how far it is from the next tier, and what is still on '
           "the table. Generated by <code>incentives report</code> from the tables offer_results and "
           "participant_opportunities.</p>", '<div class="cards">']
    for label, key, value in (
            ("participants", "participants", f"{participants:,}"),
            ("offers qualified (participant x offer)", "qualified_count", f"{total['qualified_count']:,}"),
            ("incentive earned", "incentive_amount", _money(total["incentive_amount"])),
            ("if every offer qualified", "potential_if_qualified", _money(total["potential_if_qualified"])),
            ("amount at stake (next steps)", "amount_at_stake", _money(total["amount_at_stake"]))):
        out.append(f'<div class="card"><div class="value" data-total="{key}">{value}</div>'
                   f'<div class="label">{_e(label)}</div></div>')
    out.append("</div>")

    out.append("<h2>Programs and offers</h2><table><thead><tr><th>program / offer</th>"
               '<th class="num">participants</th><th class="num">qualified</th><th class="num">incentive</th>'
               '<th class="num">if qualified</th><th class="num">next-tier uplift</th></tr></thead><tbody>')
    program = None
    for o in offers:
        if o["program_key"] != program:
            program = o["program_key"]
            mine = [x for x in offers if x["program_key"] == program]
            out.append(f'<tr class="program" data-program="{_e(program)}"><td>{_e(program)}</td>'
                       f'<td class="num"></td><td class="num">{sum(x["qualified_count"] for x in mine):,}</td>'
                       f'<td class="num">{_money(sum((x["incentive_amount"] for x in mine), Decimal(0)))}</td>'
                       f'<td class="num">{_money(sum((x["potential_if_qualified"] for x in mine), Decimal(0)))}</td>'
                       f'<td class="num">{_money(sum((x["next_tier_uplift"] for x in mine), Decimal(0)))}</td></tr>')
        out.append(f'<tr data-offer="{_e(o["offer_key"])}"><td>{_e(o["offer_key"])}</td>'
                   f'<td class="num">{o["participants"]:,}</td><td class="num">{o["qualified_count"]:,}</td>'
                   f'<td class="num">{_money(o["incentive_amount"])}</td>'
                   f'<td class="num">{_money(o["potential_if_qualified"])}</td>'
                   f'<td class="num">{_money(o["next_tier_uplift"])}</td></tr>')
    out.append("</tbody></table>")

    out.append("<h2>Amount at stake by gap</h2>"
               '<p class="muted">participant_opportunities: what the next step is worth, summed by how far it is '
               "(the gap in the unit of what it measures: dollars for amount thresholds and qualifications). "
               f'<span class="legend"><span style="background:{COLORS["qualification"]}"></span>qualifying'
               f'<span style="background:{COLORS["next_tier"]}"></span>next tier</span></p>')
    out.append(_stake_chart(opportunities))

    out.append("<h2>Participants</h2>")
    by_entity: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for t in tiers:
        by_entity.setdefault(t["entity_id"], {"tiers": [], "open": []})["tiers"].append(t)
    for o in opportunities:
        if o["gap_source"] == "qualification":
            by_entity.setdefault(o["entity_id"], {"tiers": [], "open": []})["open"].append(o)
    if not by_entity:
        out.append('<p class="muted">No participant has a next tier or an offer to qualify for.</p>')
    for entity_id in sorted(by_entity):
        entry = by_entity[entity_id]
        out.append(f'<h3 data-entity="{_e(entity_id)}">{_e(entity_id)}</h3>')
        if entry["tiers"]:
            out.append('<table><thead><tr><th>stepped offer</th><th>progress to the next tier</th><th>next tier</th>'
                       '<th class="num">gap</th><th class="num">earns now</th><th class="num">uplift</th>'
                       "</tr></thead><tbody>")
            for t in entry["tiers"]:
                unit = units.get(t["offer_key"], "")
                gap = (f"{unit}{_money(t['gap_to_next_tier'])}" if unit else _number(t["gap_to_next_tier"]))
                out.append(f'<tr><td class="key">{_e(t["offer_key"])}</td>'
                           f'<td>{_progress(t["threshold_value"], t["next_tier_threshold"])}</td>'
                           f'<td class="key">{_e(t["next_tier_key"])}</td><td class="num">{gap}</td>'
                           f'<td class="num">{_money(t["incentive_amount"])}</td>'
                           f'<td class="num">{_money(t["next_tier_uplift"])}</td></tr>')
            out.append("</tbody></table>")
        if entry["open"]:
            out.append('<table><thead><tr><th>unqualified offer</th><th>blocking</th><th>closest</th>'
                       '<th class="num">gap</th><th class="num">would pay</th></tr></thead><tbody>')
            for o in entry["open"]:
                blocking = ", ".join(x for x in (o["blocking_program_qualifications"],
                                                 o["blocking_offer_qualifications"]) if x)
                out.append(f'<tr><td>{_e(o["offer_key"])}</td><td>{_e(blocking)}</td><td>{_e(o["gap_key"])}</td>'
                           f'<td class="num">{_number(o["gap"])}</td>'
                           f'<td class="num">{_money(o["amount_at_stake"])}</td></tr>')
            out.append("</tbody></table>")
    out.append(scenarios_section(con))  # the what-if scenarios, when the run had some
    out.append(forecast_section(con))  # the forecast and the accruals, when the run had a forecast
    out.append(report_section(con))  # the reconciliation with the vendor's statements, when imported
    out.append("</body></html>\n")
    return "\n".join(out)


SECTION_SCENARIO_ROWS = 200


def _table_present(con: Any, name: str) -> bool:
    """Whether the results file has the table main.`name` (a section's table may predate its feature)."""
    return bool(con.execute("select count(*) from information_schema.tables "
                            f"where table_schema = 'main' and table_name = '{name}'").fetchone()[0])


def scenarios_section(con: Any) -> str:
    """The report's what-if section (docs/scenarios.md): per scenario x participant x offer it
    changes, the baseline and the scenario side; empty when scenario_results has no rows (or the
    results predate it)."""
    if not _table_present(con, "scenario_results"):
        return ""
    rows = _rows(con, f"""
        select scenario_id, entity_id, offer_key, baseline_incentive_amount, scenario_incentive_amount, delta,
            baseline_qualified, scenario_qualified, baseline_current_tier_key, scenario_current_tier_key,
            qualifications_newly_met, qualifications_newly_lost
        from main.scenario_results
        order by scenario_id, entity_id, offer_key
        limit {SECTION_SCENARIO_ROWS + 1}""")
    if not rows:
        return ""
    (scenarios, changed, delta) = con.execute(
        "select count(distinct scenario_id), count(*), coalesce(sum(delta), 0) from main.scenario_results").fetchone()
    out = ['<h2 id="scenarios">What-if scenarios</h2>',
           '<p class="muted">Each scenario evaluated as its participants with the scenario\'s transactions and '
           "property values added, by the same rules (table scenario_results; its earning rows in "
           "scenario_earnings); only the offers a scenario changes.</p>", '<div class="cards">']
    for label, key, value in (("scenarios", "scenarios", f"{scenarios:,}"),
                              ("offers changed", "offers_changed", f"{changed:,}"),
                              ("total change", "delta", _money(delta))):
        out.append(f'<div class="card"><div class="value" data-scenarios="{key}">{value}</div>'
                   f'<div class="label">{_e(label)}</div></div>')
    out.append("</div>")
    out.append('<table><thead><tr><th>scenario</th><th>participant</th><th>offer</th><th class="num">baseline</th>'
               '<th class="num">scenario</th><th class="num">change</th><th>qualified</th><th>tier</th>'
               "<th>qualifications</th></tr></thead><tbody>")
    for r in rows[:SECTION_SCENARIO_ROWS]:
        qualified = (_e("yes" if r["scenario_qualified"] else "no") if r["baseline_qualified"] == r["scenario_qualified"]
                     else f'{"yes" if r["baseline_qualified"] else "no"} &rarr; {"yes" if r["scenario_qualified"] else "no"}')
        tier = ("" if r["baseline_current_tier_key"] == r["scenario_current_tier_key"] else
                f'{_e(r["baseline_current_tier_key"] or "none")} &rarr; {_e(r["scenario_current_tier_key"] or "none")}')
        quals = "; ".join(x for x in (f'met {r["qualifications_newly_met"]}' if r["qualifications_newly_met"] else "",
                                      f'lost {r["qualifications_newly_lost"]}' if r["qualifications_newly_lost"] else "") if x)
        out.append(f'<tr data-scenario="{_e(r["scenario_id"])}|{_e(r["entity_id"])}|{_e(r["offer_key"])}">'
                   f'<td>{_e(r["scenario_id"])}</td><td>{_e(r["entity_id"])}</td><td class="key">{_e(r["offer_key"])}</td>'
                   f'<td class="num">{_money(r["baseline_incentive_amount"])}</td>'
                   f'<td class="num">{_money(r["scenario_incentive_amount"])}</td>'
                   f'<td class="num">{_money(r["delta"])}</td><td>{qualified}</td><td class="key">{tier}</td>'
                   f"<td>{_e(quals)}</td></tr>")
    out.append("</tbody></table>")
    if changed > SECTION_SCENARIO_ROWS:
        out.append(f'<p class="muted">... {changed - SECTION_SCENARIO_ROWS:,} more rows in table scenario_results.</p>')
    return "\n".join(out)


def _accrual_chart(runs: list[dict[str, Any]]) -> str:
    """Bars (inline SVG) of the total accrual_to_date of each run of the history that had a forecast."""
    top = max([abs(r["accrual"]) for r in runs] + [Decimal(1)])
    bar, gap, height = 28, 10, 90
    parts = [f'<svg class="accruals" width="{len(runs) * (bar + gap) + 20}" height="{height + 40}" role="img" '
             'aria-label="accrual to date by run">']
    for i, r in enumerate(runs):
        h = float(abs(r["accrual"]) / top) * height
        x = 10 + i * (bar + gap)
        parts.append(f'<rect x="{x}" y="{height - h + 5:.1f}" width="{bar}" height="{h:.1f}" fill="#3e7cb1" '
                     f'data-run="{_e(r["run_id"])}"><title>{_e(r["run_id"])}: {_money(r["accrual"])}</title></rect>'
                     f'<text x="{x + bar / 2}" y="{height + 20}" font-size="9" text-anchor="middle">'
                     f'{_e(str(r["as_of"]) if r["as_of"] is not None else "")}</text>')
    parts.append("</svg>")
    return "".join(parts)


def forecast_section(con: Any) -> str:
    """The report's forecast section (docs/forecast.md): per offer, earned to date against the
    accrual and the projected season amount (forecast_results), and the total accrual of each run
    of offer_results_history; empty when the run had no forecast."""
    if not _table_present(con, "forecast_results"):
        return ""
    rows = _rows(con, """
        select offer_key, min(as_of) as as_of, min(horizon) as horizon, count(*) as participants,
            sum(earned_to_date) as earned, sum(accrual_to_date) as accrual,
            sum(projected_season_amount) as projected, sum(accrual_minus_earned) as catch_up
        from main.forecast_results group by offer_key order by offer_key""")
    if not rows:
        return ""
    out = ['<h2 id="forecast">Forecast and accruals</h2>',
           f'<p class="muted">As of {_e(rows[0]["as_of"])}, projected to {_e(rows[0]["horizon"])} (table '
           "forecast_results): what the actual transactions earn today, what they earn under the projected "
           "outcome (the accrual) and what the offer pays at the season's end.</p>",
           '<table><thead><tr><th>offer</th><th class="num">participants</th><th class="num">earned to date</th>'
           '<th class="num">accrual to date</th><th class="num">accrual - earned</th>'
           '<th class="num">projected season</th></tr></thead><tbody>']
    for r in rows:
        out.append(f'<tr data-forecast="{_e(r["offer_key"])}"><td class="key">{_e(r["offer_key"])}</td>'
                   f'<td class="num">{r["participants"]:,}</td><td class="num">{_money(r["earned"])}</td>'
                   f'<td class="num">{_money(r["accrual"])}</td><td class="num">{_money(r["catch_up"])}</td>'
                   f'<td class="num">{_money(r["projected"])}</td></tr>')
    out.append("</tbody></table>")
    if _table_present(con, "offer_results_history"):
        runs = _rows(con, """
            select run_id, max(as_of) as as_of, sum(accrual_to_date) as accrual from main.offer_results_history
            where accrual_to_date is not null group by run_id order by max(as_of), min(recorded_at), run_id""")
        if runs:
            out.append(f'<h3>Accrual to date by run</h3><p class="muted">{len(runs):,} run(s) with a forecast in '
                       "offer_results_history (table accrual_changes: the change since the previous run).</p>")
            out.append(_accrual_chart(runs))
    return "\n".join(out)


def report(database: Path, out: Path) -> Path:
    """Write the report of the DuckDB file `database` to `out`; returns its path."""
    import duckdb

    con = open_results(database, (*RESULTS, "participant_opportunities"))
    try:
        try:
            page = render(con)
        except duckdb.CatalogException as exc:
            raise IncentivesError(f"{database}: not the results of this version of `incentives run` ({exc})") from None
    finally:
        con.close()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_name(out.name + ".tmp")
        tmp.write_text(page)
        tmp.replace(out)
    except OSError as exc:
        raise IncentivesError(f"cannot write {out}: {exc.strerror}") from None
    return out.resolve()
