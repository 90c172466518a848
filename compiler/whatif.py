"""`incentives what-if`: one participant's scenario, evaluated against the inputs of the run that
built a results file, by the project's own models (docs/scenarios.md).

The results file keeps the inputs its run read (schema raw) and its rule tables (main_rules). A
what-if copies the participant's share of them into a scratch DuckDB database
(in memory, under the name of a run's building file, which the compiled SQL names): its transactions, its own and the default properties and
the transaction-level properties of its transactions, its enrollments (and one more row when it
has none, so that the run's enrollment mode holds), every product, price and waiver, and the rule
tables. The scenario goes in as the inputs `scenarios` and `scenario_properties`, and the
participant's rows of the run's offer_results as the baseline they are compared with.

Then the models scenario_results and scenario_earnings depend on, but the baseline's
(BASELINE_MODELS: the run built them), are built in the scratch file from their SQL as dbt
compiles it: `dbt compile` of that selection gives each model's SQL, materialization and
relation, kept in target/what-if/plan.json under a hash of what it is compiled from (the
project's files, the vars, dbt's version, as the input checks are: validate_data.compiled_from).
A what-if runs those statements in dependency order in one DuckDB connection: the project's own
SQL without dbt's ~50 ms per node, and without starting dbt at all when the plan is saved. No
tests run: the inputs were checked by their run, and the scenario's rows here. The results file
is only read.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Callable

from .errors import DataError, FilePlace, IncentivesError, IssueCollector

SCENARIO_ID = "what-if"
# the hypothetical transactions' ids: never an actual transaction's (checked against the run's)
TRANSACTION_PREFIX = "what-if-"
BUY = re.compile(r"^(?P<sku>[^=]+)=(?P<quantity>[^@:]+)(?:@(?P<amount>[^:]+))?(?::(?P<date>.+))?$")
PROPERTY = re.compile(r"^(?:(?P<level>request|entity):)?(?P<key>[^=]+)=(?P<value>.*)$")
SCRATCH_NAME = "incentives.duckdb"  # the building file's name: the compiled SQL names its catalog
SCRATCH_CATALOG = "incentives"
def _target_path() -> str:
    """The what-if's dbt folder: a saved parse of its own (the run's vars differ), inside the run's
    (build.dbt_target_path)."""
    from .run.build import dbt_target_path

    return f"{dbt_target_path()}/what-if"
# the baseline offer_results and the models only it reads: the participant's rows of the run's
# offer_results are copied instead of built again
BASELINE_MODELS = ("offer_results", "potential_earnings", "int_incentives__offer_opportunities",
                   "int_incentives__qualifier_blocking")
PLAN_FORMAT = 1


@dataclass
class Purchase:
    """One --buy: SKU=QTY[@AMOUNT][:DATE]."""

    sku_key: str
    quantity: Decimal
    amount: Decimal | None
    date: dt.date | None
    text: str


@dataclass
class Outcome:
    """What the scenario changes for the participant: the rows of scenario_results, and what it added."""

    entity_id: str
    run_id: str
    purchases: list[tuple[str, str, str, str, Decimal, Decimal | None, str | None]]  # id, type, date, sku, qty, amount, uom
    overrides: list[tuple[str, str, str]]  # level, key, value
    changes: list[dict[str, Any]] = field(default_factory=list)

    def render(self) -> str:
        added = Decimal(sum(p[4] for p in self.purchases))
        lines = [f"What if {self.entity_id} (run {self.run_id}):"]
        for _, ttype, date, sku, qty, amount, _ in self.purchases:
            price = "no value (no program reads it)" if amount is None else _money(amount)
            lines.append(f"  buys {_number(qty)} of {sku} for {price} on {date} ({ttype})")
        for level, key, value in self.overrides:
            lines.append(f"  has {key} = {value} ({level} level)")
        if not self.changes:
            lines.append("No offer changes.")
            return "\n".join(lines)
        total = Decimal("0.00")
        for row in self.changes:
            delta = row["delta"]
            total += delta
            head = (f"  {row['offer_key']}: {_money(row['baseline_incentive_amount'])} -> "
                    f"{_money(row['scenario_incentive_amount'])} ({'+' if delta >= 0 else ''}{_money(delta)}")
            if added:
                head += f"; {_money(delta / added, 4)} per added unit"
            lines.append(head + ")")
            if row["baseline_qualified"] != row["scenario_qualified"]:
                lines.append(f"      qualified: {_yes(row['baseline_qualified'])} -> {_yes(row['scenario_qualified'])}")
            if row["baseline_current_tier_key"] != row["scenario_current_tier_key"]:
                lines.append(f"      tier: {row['baseline_current_tier_key'] or 'none'} -> {row['scenario_current_tier_key'] or 'none'}")
            if row["qualifications_newly_met"]:
                lines.append(f"      newly met: {row['qualifications_newly_met']}")
            if row["qualifications_newly_lost"]:
                lines.append(f"      newly lost: {row['qualifications_newly_lost']}")
        lines.append(f"  total: {'+' if total >= 0 else ''}{_money(total)}")
        return "\n".join(lines)


def _money(x: Decimal, places: int = 2) -> str:
    q = Decimal(1).scaleb(-places)
    return f"{Decimal(x).quantize(q, rounding=ROUND_HALF_UP):,}"


def _number(x: Decimal) -> str:
    return f"{x.normalize():f}"


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def parse_buys(texts: list[str], properties: list[str]) -> tuple[list[Purchase], list[tuple[str | None, str, str]]]:
    """The --buy and --property arguments, every problem at once."""
    issues = IssueCollector()
    purchases = []
    for text in texts:
        m = BUY.match(text.strip())
        if m is None:
            issues.add(FilePlace(f"--buy {text}"), "not a purchase", text, "SKU=QTY[@AMOUNT][:DATE], e.g. seed_x=200@9000:2026-08-01")
            continue
        quantity = _decimal(m["quantity"], issues, text, "quantity")
        amount = _decimal(m["amount"], issues, text, "amount") if m["amount"] else None
        date = None
        if m["date"]:
            try:
                date = dt.date.fromisoformat(m["date"].strip())
            except ValueError:
                issues.add(FilePlace(f"--buy {text}"), "not a date", m["date"], "an ISO date like 2026-08-01")
        if quantity is not None:
            purchases.append(Purchase(m["sku"].strip(), quantity, amount, date, text))
    overrides: list[tuple[str | None, str, str]] = []
    for text in properties:
        m = PROPERTY.match(text.strip())
        if m is None or not m["key"].strip():
            issues.add(FilePlace(f"--property {text}"), "not a property value", text, "[request:|entity:]KEY=VALUE")
            continue
        overrides.append((m["level"], m["key"].strip(), m["value"].strip()))
    if not texts and not properties:
        issues.add(FilePlace("what-if"), "nothing to evaluate", None, "at least one --buy or --property")
    if issues.errors:
        raise DataError("The scenario cannot be evaluated", issues.issues)
    return purchases, overrides


def _decimal(text: str, issues: IssueCollector, arg: str, what: str) -> Decimal | None:
    try:
        value = Decimal(text.strip().replace(",", ""))
    except InvalidOperation:
        issues.add(FilePlace(f"--buy {arg}"), f"{what} is not a number", text, "a decimal number, e.g. 200 or 1250.50")
        return None
    if not value.is_finite() or abs(value) >= Decimal(10) ** 14 or value.as_tuple().exponent < -4:
        issues.add(FilePlace(f"--buy {arg}"), f"{what} out of range", text, "at most 14 digits before the point and 4 after")
        return None
    return value


def what_if(database: Path, entity_id: str, buys: list[str], properties: list[str], transaction_type: str | None = None,
            say: Callable[[str], None] = lambda _: None) -> Outcome:
    """Evaluate the scenario (see the module's docstring); the rows of scenario_results it gives."""
    import duckdb

    purchases, overrides = parse_buys(buys, properties)
    if not database.exists():
        raise IncentivesError(f"{database} not found: run `incentives run --database {database}` first")
    plan = compiled_plan(say)
    con = duckdb.connect()
    try:
        # the scratch database, in memory, under the building file's name (the compiled SQL names it)
        con.execute(f"attach ':memory:' as {SCRATCH_CATALOG}")
        con.execute(f"use {SCRATCH_CATALOG}")
        try:
            con.execute(f"attach '{_sql_path(database)}' as results (read_only)")
        except duckdb.Error as exc:
            raise IncentivesError(f"cannot read {database}: {str(exc).splitlines()[0]}") from None
        outcome = _stage(con, entity_id, purchases, overrides, transaction_type)
        con.execute("detach results")
        for schema in sorted({step["schema"] for step in plan}):
            con.execute(f'create schema if not exists "{schema}"')
        for step in plan:
            kind = "view" if step["materialized"] == "view" else "table"
            try:
                con.execute(f"create or replace {kind} {step['relation']} as (\n{step['sql']}\n)")
            except duckdb.Error as exc:
                raise IncentivesError(f"the what-if could not build {step['name']}: {str(exc).splitlines()[0]}") from None
        _price_the_unpriced(con, outcome, plan, purchases)
        cursor = con.execute("select * from main.scenario_results where entity_id = ? order by program_key, offer_key",
                             [entity_id])
        columns = [d[0] for d in cursor.description]
        outcome.changes = [dict(zip(columns, row)) for row in cursor.fetchall()]
    finally:
        con.close()
    return outcome


def _sql_path(path: Path) -> str:
    return str(path.resolve()).replace("'", "''")


def _stage(con: Any, entity_id: str, purchases: list[Purchase], overrides: list[tuple[str | None, str, str]],
           transaction_type: str | None) -> Outcome:
    """Copy the participant's inputs and the rule tables from `results` into the scratch file, and
    the scenario's rows: the Outcome to fill."""
    tables = {(s, t) for s, t in con.execute(
        "select table_schema, table_name from information_schema.tables where table_catalog = 'results'").fetchall()}
    if ("raw", "transactions") not in tables or ("raw", "run_context") not in tables:
        raise IncentivesError("the results file holds no inputs of a run (tables raw.transactions, raw.run_context): "
                              "it was not built by `incentives run`")
    run_id = con.execute("select run_id from results.raw.run_context").fetchone()[0]
    con.execute("create schema raw")
    con.execute("create schema main_rules")
    con.execute("create table raw.transactions as select * from results.raw.transactions where entity_id = ?", [entity_id])
    for name in ("products", "prices", "waivers", "run_context"):
        con.execute(f"create table raw.{name} as select * from results.raw.{name}")
    con.execute("""create table raw.properties as select * from results.raw.properties
                   where entity_id = $1 or nullif(trim(cast(entity_id as varchar)), '') is null
                      or transaction_id in (select transaction_id from raw.transactions)""", [entity_id])
    # its enrollments, and one other row when it has none: enrollments with rows means "only enrolled pairs"
    con.execute("""create table raw.enrollments as
                   select * from results.raw.enrollments where entity_id = $1
                   union all
                   (select * from results.raw.enrollments
                    where not exists (select 1 from results.raw.enrollments where entity_id = $1) limit 1)""", [entity_id])
    for schema, name in sorted(tables):
        if schema == "main_rules":
            con.execute(f'create table main_rules."{name}" as select * from results.main_rules."{name}"')
    con.execute("create table main.offer_results as select * from results.main.offer_results where entity_id = ?", [entity_id])
    issues = IssueCollector()
    rows = []
    usual_type = transaction_type or _most_frequent(con, "transaction_type", "raw.transactions") \
        or "retailer_purchases_from_distribution"
    last_date = con.execute("select max(cast(transaction_date as date)) from raw.transactions").fetchone()[0]
    for n, p in enumerate(purchases, start=1):
        date = p.date or last_date
        if date is None:
            issues.add(FilePlace(f"--buy {p.text}"), "no date", None,
                       "a date (SKU=QTY[@AMOUNT]:DATE): the participant has no transactions to take one from")
            continue
        amount = p.amount  # None: the engine values it at the program price (int_incentives__transactions)
        uom = _most_frequent(con, "uom_key", "raw.transactions", p.sku_key) or \
            _most_frequent(con, "uom_key", "results.raw.transactions", p.sku_key)
        rows.append((f"{TRANSACTION_PREFIX}{n}", usual_type, date.isoformat(), p.sku_key, p.quantity, amount, uom))
    taken = con.execute(f"select count(*) from results.raw.transactions where transaction_id like '{TRANSACTION_PREFIX}%'").fetchone()[0]
    if taken:
        issues.add(FilePlace("transactions"), "the run's transactions use the what-if ids", f"{TRANSACTION_PREFIX}...",
                   f"no actual transaction_id starting with {TRANSACTION_PREFIX}")
    if issues.errors:
        raise DataError("The scenario cannot be evaluated", issues.issues)
    con.execute("create table raw.scenarios (scenario_id varchar, entity_id varchar, transaction_id varchar, "
                "transaction_type varchar, transaction_date date, sku_key varchar, quantity decimal(18,4), "
                "uom_key varchar, amount decimal(18,4))")
    if rows:
        con.executemany("insert into raw.scenarios values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [(SCENARIO_ID, entity_id, tid, ttype, date, sku, qty, uom, amount)
                         for tid, ttype, date, sku, qty, amount, uom in rows])
    levels: list[tuple[str, str, str]] = []
    for level, key, value in overrides:
        levels += [(lv, key, value) for lv in ([level] if level else ["request", "entity"])]
    con.execute("create table raw.scenario_properties (scenario_id varchar, level varchar, entity_id varchar, "
                "key varchar, value varchar)")
    if levels:
        con.executemany("insert into raw.scenario_properties values (?, ?, ?, ?, ?)",
                        [(SCENARIO_ID, level, entity_id, key, value) for level, key, value in levels])
    return Outcome(entity_id, run_id, rows, levels)


def _price_the_unpriced(con: Any, outcome: Outcome, plan: list[dict[str, str]], purchases: list[Purchase]) -> None:
    """The amounts of the purchases given without one, as the engine valued them (quantity x the
    program price on the date, int_incentives__transactions): refused when a program reads the SKU
    and it has no price then; a SKU no program of the participant reads is not valued (it earns nothing)."""
    unpriced = [n for n, row in enumerate(outcome.purchases) if row[5] is None]
    if not unpriced:
        return
    relation = next(step["relation"] for step in plan if step["name"] == "int_incentives__transactions")
    values = dict(con.execute(f"select transaction_id, value from {relation} where transaction_id like ?",
                              [f"{TRANSACTION_PREFIX}%"]).fetchall())
    issues = IssueCollector()
    for n in unpriced:
        tid, ttype, date, sku, qty, _, uom = outcome.purchases[n]
        if tid in values and values[tid] is None:
            issues.add(FilePlace(f"--buy {purchases[n].text}"), "no amount and no program price", sku,
                       f"an amount (SKU=QTY@AMOUNT), or a price of {sku} on {date} in prices")
        value = values.get(tid)
        outcome.purchases[n] = (tid, ttype, date, sku, qty, None if value is None else Decimal(value), uom)
    if issues.errors:
        raise DataError("The scenario cannot be evaluated", issues.issues)


def _most_frequent(con: Any, column: str, table: str, sku_key: str | None = None) -> str | None:
    where = "where sku_key = ?" if sku_key is not None else ""
    row = con.execute(f"select {column}, count(*) from {table} {where} group by 1 order by 2 desc, 1 limit 1",
                      [sku_key] if sku_key is not None else []).fetchone()
    return None if row is None else row[0]


def compiled_plan(say: Callable[[str], None] = lambda _: None) -> list[dict[str, str]]:
    """The statements a what-if runs (see the module's docstring): per model, in dependency order,
    its name, schema, relation, materialization and compiled SQL; ephemeral models are inlined by
    dbt into their readers' SQL."""
    from .compile.write import write_atomically
    from .run.build import PROJECT_DIR, RUN_CONTEXT_VARS, ensure_rule_seeds
    from .run.validate_data import compiled_from

    ensure_rule_seeds()
    dbt_vars = {**RUN_CONTEXT_VARS, "incentives_using_scenarios": True, "incentives_using_scenario_properties": True}
    key = compiled_from(PROJECT_DIR, f"what-if {PLAN_FORMAT} {SCRATCH_NAME}", dbt_vars)
    cache = PROJECT_DIR / _target_path() / "plan.json"
    try:
        saved = json.loads(cache.read_text())
        if saved.get("key") == key:
            return saved["plan"]
    except (OSError, ValueError):
        pass
    say("Compiling the what-if's models (once per change of the project)")
    plan = _dbt_compile_plan(dbt_vars)
    cache.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(cache, json.dumps({"key": key, "plan": plan}, indent=1))
    return plan


def _dbt_compile_plan(dbt_vars: dict[str, Any]) -> list[dict[str, str]]:
    from dbt.cli.main import dbtRunner

    from .compile.parse import gc_paused
    from .run.build import PROJECT_DIR

    os.environ["INCENTIVES_DUCKDB_PATH"] = SCRATCH_NAME  # only its name matters: dbt does not connect
    args = ["compile", "--select", "+scenario_results", "+scenario_earnings", "--exclude", *BASELINE_MODELS,
            "--vars", json.dumps(dbt_vars), "--target-path", _target_path(), "--no-introspect", "--no-populate-cache",
            "--no-write-json", "--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR / "profiles"),
            "--quiet", "--no-use-colors"]
    with gc_paused():
        result = dbtRunner().invoke(args)
    if not result.success:
        raise IncentivesError(f"dbt could not compile the what-if's models: {result.exception or 'see logs/dbt.log'}")
    nodes = {r.node.unique_id: r.node for r in result.result.results if r.node.resource_type == "model"}
    order: list[str] = []

    def visit(uid: str) -> None:
        if uid in order or uid not in nodes:
            return
        for parent in nodes[uid].depends_on.nodes:
            visit(parent)
        order.append(uid)

    for uid in sorted(nodes):
        visit(uid)
    return [{"name": nodes[u].name, "schema": nodes[u].schema, "relation": nodes[u].relation_name,
             "materialized": nodes[u].config.materialized, "sql": nodes[u].compiled_code}
            for u in order if nodes[u].config.materialized != "ephemeral"]
