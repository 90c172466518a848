"""The rule tables: their columns, types, keys and docs, declared once.

`incentives compile` writes each table as a dbt seed (CSV) and writes, from this declaration, the
seeds' properties file (`_incentive_rules.yml`: column types, docs and data tests). The staging
models of the rule tables (models/rules/) write the column types themselves and cast each column
(macros/read_rule_table.sql), so every engine has the same types whether `dbt seed` loaded the
table or `incentives run` copied it as text; tests/test_compiler.py checks that each lists
exactly the columns declared here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .program.models import CALCULATORS, OPERATORS
from .qualifications import QUALIFICATION_TYPES
from .strategies import STRATEGIES

# column kinds -> seed column type (rendered by dbt for the target: text is `string` on Spark)
TEXT = "text"
KINDS = {
    TEXT: "{{ 'string' if target.type in ('spark', 'databricks', 'bigquery') else 'varchar' }}",
    "bigint": "bigint",
    "decimal": "decimal(38,10)",
    "date": "date",
    "boolean": "boolean",
}
CATALOGUE_HASH = "catalogue_hash"
CATALOGUE = "catalogue"
# The seeds' names: every rule table and the catalogue is the seed `incentives__<table>`, so that a
# project installing the package keeps seeds of its own named `offers` or `catalogue` apart from
# them (the package's models find the rule seeds by these names: macros/read_rule_table.sql).
SEED_PREFIX = "incentives__"


def seed_name(table: str) -> str:
    """The dbt seed (CSV file stem, table name where the seeds go) of the rule table `table`."""
    return SEED_PREFIX + table


def table_of_seed(seed: str) -> str:
    """The rule table (or catalogue) whose seed is `seed` (inverse of seed_name)."""
    if not seed.startswith(SEED_PREFIX):
        raise ValueError(f"{seed!r} is not a rule seed (they are named {SEED_PREFIX}<table>)")
    return seed[len(SEED_PREFIX):]


@dataclass(frozen=True)
class Column:
    name: str
    kind: str
    description: str


@dataclass(frozen=True)
class RuleTable:
    name: str
    description: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]  # the columns that identify a row (tested unique)

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


def _c(name: str, kind: str, description: str) -> Column:
    return Column(name, kind, description)


PROGRAM = _c("program_key", TEXT, "The program's key.")
OFFER = _c("offer_key", TEXT, "The offer's key.")
START = _c("start_date", "date", "First day of the resolved period (0001-01-01 when open).")
END = _c("end_date", "date", "Last day of the resolved period (9999-12-31 when open).")
TYPE = _c("transaction_type", TEXT, "The transaction type matched; empty matches any.")
MEASURE = _c("measure", TEXT, "The rate's measure (percent or dollars).")

RULE_TABLES: tuple[RuleTable, ...] = (
    RuleTable("offers", "One row per offer: strategy, calculator and (stepped) threshold definition.", (
        PROGRAM, OFFER,
        _c("strategy_key", TEXT, "standard, stepped or stacked."),
        _c("calculator_key", TEXT, "percent_of_amount, dollars_per_unit, fixed_amount or dollars_per_coverage_unit."),
        _c("threshold_type", TEXT, "Stepped: aggregated_amount, aggregated_quantity or property."),
        _c("threshold_filter_id", "bigint", "Stepped: the filter group the threshold sums over."),
        _c("threshold_property_key", TEXT, "Stepped property threshold: the property key."),
        _c("threshold_property_level", TEXT, "Stepped property threshold: request, entity or transaction."),
        _c("earning_filter_id", "bigint", "Stepped: the filter group of the earning transactions."),
    ), ("offer_key",)),
    RuleTable("filter_keys", "Filter groups as the (SKU or any, transaction type, time bucket) keys they match; the keys "
              "of a group never overlap, so a transaction counts once.", (
        _c("filter_id", "bigint", "The filter group."),
        _c("sku_key", TEXT, "The SKU matched; empty matches any."),
        TYPE,
        _c("bucket_id", "bigint", "The time bucket matched (time_buckets)."),
    ), ("filter_id", "sku_key", "transaction_type", "bucket_id")),
    RuleTable("qualifications", "Every program- and offer-level qualification with its type, operator, value and "
              "filter groups.", (
        _c("qualification_id", "bigint", "Surrogate key of the qualification."),
        PROGRAM,
        _c("offer_key", TEXT, "The offer's key; empty for a program-level qualification."),
        _c("qualification_key", TEXT, "The qualification's key, unique in its program or offer."),
        _c("qualification_level", TEXT, "program or offer."),
        _c("qualification_type", TEXT, "One of the eight qualification types."),
        _c("operator", TEXT, "The comparison of actual with target."),
        _c("qualification_value", "decimal", "The value (booleans: 1 or 0)."),
        _c("is_boolean", "boolean", "A boolean property qualification."),
        _c("filter_id", "bigint", "aggregated and brand_count types: the filter group."),
        _c("numerator_filter_id", "bigint", "Ratio types: the numerator's filter group."),
        _c("denominator_filter_id", "bigint", "Ratio types: the denominator's filter group."),
        _c("divisor", "decimal", "amount_average_index: the denominator's divisor (positive)."),
        _c("property_key", TEXT, "property: the property key."),
        _c("property_level", TEXT, "property: request or entity."),
        _c("has_brand_list", "boolean", "brand_count: only listed brands count."),
    ), ("qualification_id",)),
    RuleTable("qualification_brand_rules", "brand_count refinements: eligible brands and excluded SKUs.", (
        _c("qualification_id", "bigint", "The brand_count qualification."),
        _c("rule", TEXT, "brand (an eligible brand) or excluded_sku."),
        _c("rule_key", TEXT, "The brand or SKU key."),
    ), ("qualification_id", "rule", "rule_key")),
    RuleTable("qualifier_terms", "Qualifier expressions as OR-of-AND terms: a scope is qualified when every key of one "
              "term is met or waived (no term = qualified).", (
        PROGRAM,
        _c("offer_key", TEXT, "The offer's key; empty for the program qualifier."),
        _c("term_id", "bigint", "The AND term (terms are ORed)."),
        _c("qualification_key", TEXT, "A qualification of the same program (and offer) level."),
    ), ("program_key", "offer_key", "term_id", "qualification_key")),
    RuleTable("standard_rates", "Standard offers: one row per incentive entry x SKU with its resolved period.", (
        PROGRAM, OFFER,
        _c("incentive_rate_key", TEXT, "The entry's key, else {period_key}_{transaction_type}."),
        _c("sku_key", TEXT, "The SKU paid."), TYPE, START, END, MEASURE,
        _c("rate", "decimal", "The rate (percent, dollars per unit, or a fixed dollar total)."),
    ), ("offer_key", "incentive_rate_key", "sku_key")),
    RuleTable("stepped_tiers", "Stepped offers: tiers by threshold (tier_rank 1 = lowest threshold).", (
        PROGRAM, OFFER,
        _c("tier_key", TEXT, "The tier's key (generated when absent)."),
        _c("threshold", "decimal", "The tier applies from this threshold value on."),
        _c("rate", "decimal", "The tier's rate."),
        MEASURE,
        _c("tier_rank", "bigint", "1 = the lowest threshold."),
    ), ("offer_key", "tier_key")),
    RuleTable("stacked_set_skus", "Stacked offers: one row per SKU set x conversion SKU, with its pay rate (0 = anchor).", (
        PROGRAM, OFFER,
        _c("set_key", TEXT, "The SKU set."),
        _c("sku_key", TEXT, "A SKU of the set's conversion rates."), TYPE, START, END,
        _c("from_uom", TEXT, "The unit of measure the conversion reads."),
        _c("conversion_rate", "decimal", "Units of from_uom per coverage unit (positive)."),
        _c("rate", "decimal", "Dollars per coverage unit (0: an anchor)."),
        MEASURE,
        _c("coverage_weight", "bigint", "The integer w with conversion_rate x w = set_conversion_rate: a transaction "
           "covers quantity x w / set_conversion_rate units, exactly."),
        _c("set_conversion_rate", "decimal", "The set's common conversion rate (the same on every row of the set): "
           "the set covers (its net sum of quantity x coverage_weight) / set_conversion_rate units."),
        _c("offer_coverage_multiplier", "bigint", "The integer m with set_conversion_rate x m = the offer's common "
           "coverage denominator (the same for every set of the offer), over which the stacks' overlaps are summed."),
    ), ("offer_key", "set_key", "sku_key")),
    RuleTable("stacked_stacks", "Stacked offers: the sets of each stack.", (
        PROGRAM, OFFER,
        _c("stack_key", TEXT, "The stack's key (its set keys joined with _and_ when absent)."),
        _c("set_key", TEXT, "A set of the stack."),
    ), ("offer_key", "stack_key", "set_key")),
    RuleTable("periods", "Every period of the catalogue (the programs' and the offers' time_periods), once per "
              "distinct pair of dates: the season a forecast projects to (docs/forecast.md).", (
        _c("start_date", "date", "First day of the period (0001-01-01 when open)."),
        _c("end_date", "date", "Last day of the period (9999-12-31 when open)."),
    ), ("start_date", "end_date")),
    RuleTable("time_buckets", "Elementary date intervals cut at every period boundary (transactions are "
              "pre-aggregated per bucket).", (
        _c("bucket_id", "bigint", "The bucket."), START, END,
    ), ("bucket_id",)),
)
BY_NAME = {t.name: t for t in RULE_TABLES}
# name -> ordered columns, what the compiler generates (the catalogue hash is added when written)
TABLES: dict[str, tuple[str, ...]] = {t.name: t.column_names for t in RULE_TABLES}

CATALOGUE_COLUMNS: tuple[Column, ...] = (
    _c(CATALOGUE_HASH, TEXT, "sha256 of the programs JSON the rule tables were compiled from (16 hex digits)."),
    _c("status", TEXT, "compiled, or failed: the last compile failed and the rule tables are empty."),
    _c("programs", "bigint", "Programs compiled."),
    _c("offers", "bigint", "Offers compiled."),
    _c("source", TEXT, "The programs file's name."),
)

ACCEPTED_VALUES: dict[tuple[str, str], tuple[str, ...]] = {
    ("offers", "strategy_key"): STRATEGIES,
    ("offers", "calculator_key"): tuple(CALCULATORS),
    ("qualifications", "qualification_type"): tuple(QUALIFICATION_TYPES),
    ("qualifications", "operator"): OPERATORS,
    ("qualifications", "qualification_level"): ("program", "offer"),
    ("qualification_brand_rules", "rule"): ("brand", "excluded_sku"),
}


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


# What a failing row of each of the package's tests on the rule tables means: the test's
# `meta.problem`, printed with the failing rows after a build (macros/tests/failing_rows.sql).
PROBLEMS = {
    "compiled_with_the_catalogue": "rows from another compile than incentives__catalogue.csv's (a table left from an earlier compile)",
    "last_compile_succeeded": "the last incentives compile failed and emptied the rule tables: run it again and read its errors",
    "unique_combination": "two rows of the rule table share its key",
    "qualifier_terms_name_qualifications": "a qualifier term names a qualification its program or offer does not define",
    "stacked_weights_match_rates": "a stacked SKU's coverage weight, set conversion rate or offer multiplier does not match its conversion rate",
}


def _meaning(indent: str, problem: str) -> list[str]:
    return [f"{indent}config:", f"{indent}  meta: {{problem: {_quote(problem)}}}"]


def seeds_yaml() -> str:
    """The seeds' properties file: column types, docs and data tests of every rule table and the
    catalogue (deterministic; written by `incentives compile` beside the CSVs)."""
    lines = [
        "# generated by `incentives compile` from compiler/rule_tables.py; do not edit.",
        "# The CSVs beside it are generated too: commit them, and a change of programs is a reviewable diff.",
        "version: 2",
        "",
        "seeds:",
    ]

    def columns(cols: tuple[Column, ...], table: str, key: tuple[str, ...]) -> None:
        lines.append("    config:")
        lines.append("      column_types:")
        for c in cols:
            lines.append(f"        {c.name}: {_quote(KINDS[c.kind])}")
        lines.append("    columns:")
        for c in cols:
            lines.append(f"      - name: {c.name}")
            lines.append(f"        description: {_quote(c.description)}")
            tests = []
            if c.name == CATALOGUE_HASH and table != CATALOGUE:
                tests += ["          - incentives.compiled_with_the_catalogue:",
                          *_meaning("              ", PROBLEMS["compiled_with_the_catalogue"])]
            if len(key) == 1 and c.name == key[0]:
                tests += ["          - unique", "          - not_null"]
            accepted = ACCEPTED_VALUES.get((table, c.name))
            if accepted:
                tests.append("          - accepted_values:")
                tests.append("              arguments:")
                tests.append("                values: [" + ", ".join(_quote(v) for v in accepted) + "]")
            if table == CATALOGUE and c.name == "status":
                tests += ["          - incentives.last_compile_succeeded:",
                          *_meaning("              ", PROBLEMS["last_compile_succeeded"])]
            if tests:
                lines.append("        data_tests:")
                lines.extend(tests)

    lines.append(f"  - name: {seed_name(CATALOGUE)}")
    lines.append(f"    description: {_quote('The compile the rule tables come from: one row.')}")
    columns(CATALOGUE_COLUMNS, CATALOGUE, (CATALOGUE_HASH,))
    for table in RULE_TABLES:
        lines.append(f"  - name: {seed_name(table.name)}")
        lines.append(f"    description: {_quote(table.description)}")
        table_tests = []
        if len(table.key) > 1:
            table_tests += ["      - incentives.unique_combination:", "          arguments:",
                            "            columns: [" + ", ".join(table.key) + "]",
                            *_meaning("          ", PROBLEMS["unique_combination"])]
        if table.name == "qualifier_terms":
            # named: dbt's generated name of a table-level test without arguments ends in "_"
            table_tests += ["      - incentives.qualifier_terms_name_qualifications:",
                            "          name: incentives_qualifier_terms_name_qualifications",
                            *_meaning("          ", PROBLEMS["qualifier_terms_name_qualifications"])]
        if table.name == "stacked_set_skus":
            # named: dbt's generated name of a table-level test without arguments ends in "_"
            table_tests += ["      - incentives.stacked_weights_match_rates:",
                            "          name: incentives_stacked_weights_match_rates",
                            *_meaning("          ", PROBLEMS["stacked_weights_match_rates"])]
        if table_tests:
            lines.append("    data_tests:")
            lines.extend(table_tests)
        cols = table.columns + (Column(CATALOGUE_HASH, TEXT, "The compile this row comes from (catalogue)."),)
        columns(cols, table.name, table.key)
    return "\n".join(lines) + "\n"
