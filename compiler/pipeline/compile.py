"""Compile GET /programs JSON into relational rule tables.

Stages: parse (JSON text -> Python), validate (pydantic models, then registered semantic rules,
every problem collected), generate (rows of the fixed set of rule tables). Nothing here emits
per-program SQL: the dbt project evaluates every program from these tables in one pass.
"""

from __future__ import annotations

import bisect
import csv
import datetime as dt
import gc
import hashlib
import io
import json
import os
import re
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import chain, product, repeat
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence, TypeVar

from pydantic import TypeAdapter, ValidationError

from ..program import qualifier as qx
from ..errors import IncentivesError, Issue, IssueCollector, ProgramError, RunError
from ..program.models import (
    TRANSACTION_TYPES,
    VALID_CALCULATORS,
    Filter,
    Offer,
    Program,
    Qualification,
    StackedIncentive,
    SteppedIncentive,
    TimePeriod,
)

MIN_DATE = dt.date(1, 1, 1)
MAX_DATE = dt.date(9999, 12, 31)
DEFAULT_MEASURE = {
    "percent_of_amount": "percent",
    "dollars_per_unit": "dollars",
    "fixed_amount": "dollars",
    "dollars_per_coverage_unit": "dollars",
}
RATIO_TYPES = ("share_of_wallet_percent", "yoy_amount_index", "yoy_quantity_index", "amount_average_index")
FILTER_TYPES = ("aggregated_amount", "aggregated_quantity", "brand_count")

# Rule tables: name -> ordered columns (compiler/rule_tables.py declares them with their types).
from ..rule_tables import CATALOGUE, CATALOGUE_COLUMNS, CATALOGUE_HASH, TABLES, seeds_yaml  # noqa: E402
from .progress import PhaseTimer, Say  # noqa: E402

SEEDS_YAML = "_incentive_rules.yml"


@dataclass
class RuleSet:
    """The compiled rule tables (rows as tuples, in TABLES column order) and a few counts."""

    tables: dict[str, list[tuple[Any, ...]]] = field(default_factory=lambda: {t: [] for t in TABLES})
    programs: int = 0
    offers: int = 0
    # compile_text(skip_invalid=True): the problems of the programs left out (see RejectedProgram)
    rejected: list["RejectedProgram"] = field(default_factory=list)

    def sorted(self) -> "RuleSet":
        """De-duplicate and sort every table by `_row_key` (deterministic output)."""
        for name, rows in self.tables.items():
            self.tables[name] = _sorted_rows(rows)
        return self


def _row_key(row: tuple[Any, ...]) -> tuple[str, ...]:
    """The order of rule rows: as text, NULL first, integers zero-padded (so numeric order)."""
    return tuple("" if v is None else (f"{v:020d}" if isinstance(v, int) and not isinstance(v, bool) else str(v)) for v in row)


_TEXT_KINDS = {str, bool, type(None)}  # columns of these compare natively like their keys (see _key_column)
_INT_KEY_LIMIT = 10**20  # below it (and >= 0), an integer's 20-digit padded text sorts like the integer


def _key_column(values: tuple[Any, ...]) -> tuple[Any, ...] | list[Any] | None:
    """One column of `_row_key`, as values that sort the same way but compare natively: text as
    is, integers as integers, booleans as booleans (False < True, like 'False' < 'True'), NULL
    below every value of its column. None when the column does not fit those cases."""
    kinds = set(map(type, values))
    has_null = type(None) in kinds
    kinds.discard(type(None))
    if not kinds:  # only NULLs
        return values
    if len(kinds) > 1:
        return None
    kind = kinds.pop()
    if kind is int:
        present = [v for v in values if v is not None] if has_null else values
        if min(present) < 0 or max(present) >= _INT_KEY_LIMIT:
            return None
    elif kind is not str and kind is not bool:
        return None
    if not has_null:
        return values
    low = "" if kind is str else -1
    return [low if v is None else v for v in values]


def _sorted_rows(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The distinct rows sorted by `_row_key`, fast: by comparing the rows themselves when that
    gives the same order (see `_key_column`; a NULL met in a comparison raises TypeError), else
    by key columns built column by column.

    Rows with equal keys (only NULL and '' in the same column) keep their first-seen order; they
    are written as the same CSV line."""
    unique = list(dict.fromkeys(rows))
    if len(unique) < 2:
        return unique
    if set(map(type, unique[0])) <= _TEXT_KINDS and set(map(type, chain.from_iterable(unique))) <= _TEXT_KINDS:
        try:  # text (and NULLs and booleans) only: compared natively in C
            return sorted(unique)
        except TypeError:  # a NULL was compared
            pass
    if len(set(map(len, unique))) != 1:
        return sorted(unique, key=_row_key)
    columns = list(zip(*unique))
    keys = [_key_column(c) for c in columns]
    if any(k is None for k in keys):
        return sorted(unique, key=_row_key)
    try:
        return sorted(unique)
    except TypeError:  # a NULL was compared
        pass
    row_keys = list(zip(*keys))
    return list(map(unique.__getitem__, sorted(range(len(unique)), key=row_keys.__getitem__)))


def number_text(value: Decimal) -> str:
    """A decimal written without trailing zeros or exponent: 15.0 -> '15', 1.90 -> '1.9'."""
    text = format(value.normalize(), "f")
    return "0" if text in ("-0", "") else text


class _NumberTexts(dict):  # type: ignore[type-arg]
    """`number_text` of each decimal, computed once per value (equal decimals have one text)."""

    def __missing__(self, value: Decimal) -> str:
        text = self[value] = number_text(value)
        return text


def stable_id(*parts: Any) -> int:
    """A deterministic positive BIGINT id for a canonical rule (stable across catalogues)."""
    digest = hashlib.sha256(json.dumps(parts, default=str, sort_keys=True).encode()).hexdigest()
    return int(digest[:15], 16)


# ----------------------------------------------------------------------------- parse

def parse_json(text: str, source: str = "programs") -> list[Any]:
    """JSON text -> the list of raw program objects. Numbers are read as exact decimals."""
    try:
        data = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as exc:
        c = IssueCollector()
        c.add(f"{source} line {exc.lineno} column {exc.colno}", f"not valid JSON: {exc.msg}",
              expected="the GET /programs JSON")
        raise ProgramError("The programs file is not valid JSON", c.issues) from None
    if isinstance(data, dict) and "programs" in data:
        data = data["programs"]
    if not isinstance(data, list):
        c = IssueCollector()
        c.add(f"{source} (top level)", "unexpected shape", type(data).__name__,
              'an object {"programs": [...]} or a list of programs')
        raise ProgramError("The programs file has the wrong shape", c.issues)
    return data


def _path(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _where(index: int, raw: Any, path: str = "") -> str:
    key = raw.get("key") if isinstance(raw, dict) else None
    head = f"program {key!r}" if isinstance(key, str) else f"program #{index}"
    return f"{head} at programs[{index}]" + (("." + path) if path and not path.startswith("[") else path)


def _pydantic_issues(c: IssueCollector, exc: ValidationError, index: int, raw: Any, prefix: str = "") -> None:
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if not (isinstance(p, str) and ("[" in p or p.startswith("function-")))]
        path = _path(loc)
        if prefix:
            path = prefix + ("." + path if path and not path.startswith("[") else path)
        expected = None
        ctx = err.get("ctx") or {}
        if err["type"] == "literal_error":
            expected = "one of " + str(ctx.get("expected", ""))
        elif err["type"] == "missing":
            expected = "a value (the field is required)"
        elif err["type"] == "value_error":
            expected = str(ctx.get("error", err["msg"]))
        else:
            expected = err["msg"].lower()
        message = "missing field" if err["type"] == "missing" else "invalid value"
        value = None if err["type"] == "missing" else err.get("input")
        c.add(_where(index, raw, path), message, value, expected)


def validate(raw_programs: list[Any], skip: frozenset[int] = frozenset()) -> tuple[list[tuple[int, Program, Any]], IssueCollector]:
    """Typed programs (with their index and raw JSON) and every issue found; the programs at the
    indexes in `skip` are left out (they keep their index in the messages of the others)."""
    c = IssueCollector()
    typed: list[tuple[int, Program, Any]] = []
    for index, raw in enumerate(raw_programs):
        if index in skip:
            continue
        if not isinstance(raw, dict):
            c.add(f"program #{index} at programs[{index}]", "a program must be an object", raw, "an object")
            continue
        try:
            typed.append((index, Program.model_validate(raw), raw))
        except ValidationError as exc:
            _pydantic_issues(c, exc, index, raw)
    for index, program, raw in typed:
        for rule in RULES:
            rule(c, index, program, raw)
    _rule_unique_program_keys(c, typed)
    return typed, c


# ----------------------------------------------------------------------------- semantic rules

Rule = Callable[[IssueCollector, int, Program, Any], None]
RULES: list[Rule] = []


def rule(fn: Rule) -> Rule:
    """Register a semantic validation rule (adds issues, returns nothing)."""
    RULES.append(fn)
    return fn


def _rule_unique_program_keys(c: IssueCollector, typed: list[tuple[int, Program, Any]]) -> None:
    seen: dict[str, int] = {}
    offers: dict[str, str] = {}
    for index, program, raw in typed:
        if program.key in seen:
            c.add(_where(index, raw, "key"), "duplicate program key", program.key,
                  f"a key not used by programs[{seen[program.key]}]")
        seen.setdefault(program.key, index)
        for o_i, offer in enumerate(program.offers):
            if offer.key in offers and offers[offer.key] != f"{index}":
                c.add(_where(index, raw, f"offers[{o_i}].key"), "offer key already used by another program",
                      offer.key, "offer keys unique across the catalogue")
            offers.setdefault(offer.key, f"{index}")


def _dupes(c: IssueCollector, where: Callable[[int], str], keys: list[str | None], what: str) -> None:
    seen: set[str] = set()
    for i, key in enumerate(keys):
        if key is None:
            continue
        if key in seen:
            c.add(where(i), f"duplicate {what} key", key, f"each {what} key once")
        seen.add(key)


def _periods(c: IssueCollector, where: Callable[[int], str], periods: list[TimePeriod]) -> None:
    _dupes(c, lambda i: where(i) + ".key", [p.key for p in periods], "time period")
    for i, p in enumerate(periods):
        if p.end_date < p.start_date:
            c.add(where(i) + ".end_date", "period ends before it starts",
                  f"{p.start_date} .. {p.end_date}", "end_date on or after start_date")


@rule
def _rule_structure(c: IssueCollector, index: int, program: Program, raw: Any) -> None:
    w = lambda p: _where(index, raw, p)  # noqa: E731
    _periods(c, lambda i: w(f"time_periods[{i}]"), program.time_periods)
    _dupes(c, lambda i: w(f"qualifications[{i}].key"), [q.key for q in program.qualifications], "qualification")
    _dupes(c, lambda i: w(f"offers[{i}].key"), [o.key for o in program.offers], "offer")
    program_periods = {p.key for p in program.time_periods}
    for q_i, q in enumerate(program.qualifications):
        _check_qualification(c, w, f"qualifications[{q_i}]", q, program_periods, "program")
    _check_qualifier(c, w, "qualifier", program.qualifier, {q.key for q in program.qualifications})
    for o_i, offer in enumerate(program.offers):
        op = f"offers[{o_i}]"
        _periods(c, lambda i: w(f"{op}.time_periods[{i}]"), offer.time_periods)
        periods = program_periods | {p.key for p in offer.time_periods}
        _dupes(c, lambda i: w(f"{op}.qualifications[{i}].key"), [q.key for q in offer.qualifications], "qualification")
        for q_i, q in enumerate(offer.qualifications):
            _check_qualification(c, w, f"{op}.qualifications[{q_i}]", q, periods, "offer")
        _check_qualifier(c, w, f"{op}.qualifier", offer.qualifier, {q.key for q in offer.qualifications})
        if offer.calculator_key not in VALID_CALCULATORS[offer.strategy_key]:
            c.add(w(f"{op}.calculator_key"), f"calculator not valid with strategy {offer.strategy_key!r}",
                  offer.calculator_key, "one of " + ", ".join(VALID_CALCULATORS[offer.strategy_key]))
        _check_offer_incentive(c, w, op, offer, periods, index, raw)


def _check_filters(c: IssueCollector, w: Callable[[str], str], path: str, filters: list[Filter] | None,
                   periods: set[str]) -> None:
    for f_i, f in enumerate(filters or []):
        _check_period_and_type(c, w, f"{path}[{f_i}]", f.period_key, f.transaction_type, periods)


def _check_period_and_type(c: IssueCollector, w: Callable[[str], str], path: str, period_key: str | None,
                           transaction_type: str | None, periods: set[str]) -> None:
    if period_key is not None and period_key not in periods:
        c.add(w(f"{path}.period_key"), "unknown period key", period_key,
              "one of " + (", ".join(sorted(periods)) or "(no periods defined)"))
    if transaction_type is not None and transaction_type not in TRANSACTION_TYPES:
        c.add(w(f"{path}.transaction_type"), "unknown transaction type", transaction_type,
              "one of " + ", ".join(TRANSACTION_TYPES))


def _check_qualification(c: IssueCollector, w: Callable[[str], str], path: str, q: Qualification,
                         periods: set[str], level: str) -> None:
    if q.type == "property":
        if q.property is None:
            c.add(w(f"{path}.property"), "missing field", None, "a property {key, type, level}")
        else:
            if q.property.level == "transaction":
                c.add(w(f"{path}.property.level"), "a property qualification cannot use level 'transaction'",
                      q.property.level, "request or entity")
            if q.property.type == "boolean":
                if q.operator != "equal_to":
                    c.add(w(f"{path}.operator"), "a boolean property only supports equal_to", q.operator, "equal_to")
                if not isinstance(q.value, bool):
                    c.add(w(f"{path}.value"), "a boolean property needs a boolean value", q.value, "true or false")
            elif isinstance(q.value, bool):
                c.add(w(f"{path}.value"), "a number property needs a numeric value", q.value, "a number")
        return
    if isinstance(q.value, bool):
        c.add(w(f"{path}.value"), f"{q.type} needs a numeric value", q.value, "a number")
    if q.type in FILTER_TYPES:
        _check_filters(c, w, f"{path}.filters", q.filters, periods)
    else:
        for part in ("numerator", "denominator"):
            group = getattr(q, part)
            if group is None:
                c.add(w(f"{path}.{part}"), "missing field", None, f"{part} {{filters: [...]}} for {q.type}")
            else:
                _check_filters(c, w, f"{path}.{part}.filters", group.filters, periods)
        if q.type == "amount_average_index" and q.denominator is not None and q.denominator.divisor is not None:
            if q.denominator.divisor <= 0:
                c.add(w(f"{path}.denominator.divisor"), "divisor must be positive", q.denominator.divisor,
                      "a number > 0")


def _check_qualifier(c: IssueCollector, w: Callable[[str], str], path: str, text: str | None,
                     known: set[str]) -> None:
    try:
        node = qx.parse(text)
        qx.to_dnf(node)
    except qx.QualifierSyntaxError as exc:
        c.add(w(path), f"qualifier syntax error at position {exc.position + 1}: {exc}", text,
              "qualification keys joined by AND / OR with balanced parentheses")
        return
    for key in qx.keys(node):
        if key.name not in known:
            c.add(w(path), f"qualifier names unknown qualification {key.name!r} at position {key.position + 1}",
                  text, "keys of qualifications defined at the same level: " + (", ".join(sorted(known)) or "(none)"))


_STEPPED = TypeAdapter(SteppedIncentive)
_STACKED = TypeAdapter(StackedIncentive)


def parse_incentive(offer: Offer) -> SteppedIncentive | StackedIncentive | None:
    """The typed incentive object of a stepped or stacked offer (validated before)."""
    if offer.strategy_key == "stepped":
        return _STEPPED.validate_python(offer.incentive)
    if offer.strategy_key == "stacked":
        return _STACKED.validate_python(offer.incentive)
    return None


def _check_offer_incentive(c: IssueCollector, w: Callable[[str], str], op: str, offer: Offer,
                           periods: set[str], index: int, raw: Any) -> None:
    if offer.strategy_key == "standard":
        if offer.incentives is None:
            c.add(w(f"{op}.incentives"), "missing field", None, "an incentives array for a standard offer")
            return
        keys = [_standard_key(i.key, i.period_key, i.transaction_type) for i in offer.incentives]
        _dupes(c, lambda i: w(f"{op}.incentives[{i}].key"), keys, "incentive")
        for i_i, inc in enumerate(offer.incentives):
            _check_period_and_type(c, w, f"{op}.incentives[{i_i}]", inc.period_key, inc.transaction_type, periods)
            _dupes(c, lambda r: w(f"{op}.incentives[{i_i}].rates[{r}].sku_key"),
                   [r.sku_key for r in inc.rates], "rate SKU")
        return
    if not isinstance(offer.incentive, dict):
        c.add(w(f"{op}.incentive"), "missing field" if offer.incentive is None else "invalid value",
              offer.incentive, f"an incentive object for a {offer.strategy_key} offer")
        return
    try:
        inc = parse_incentive(offer)
    except ValidationError as exc:
        _pydantic_issues(c, exc, index, raw, f"{op}.incentive")
        return
    if isinstance(inc, SteppedIncentive):
        _check_filters(c, w, f"{op}.incentive.filters", inc.filters, periods)
        td = inc.threshold_definition
        tp = f"{op}.incentive.threshold_definition"
        if td.type == "property":
            if td.property is None:
                c.add(w(f"{tp}.property"), "missing field", None, "a property {key, type, level}")
            elif td.property.level == "transaction" and offer.calculator_key == "fixed_amount":
                c.add(w(f"{tp}.property.level"), "fixed_amount cannot use a transaction-level threshold",
                      td.property.level, "request or entity")
        else:
            _check_filters(c, w, f"{tp}.filters", td.filters, periods)
        keys = []
        for t_i, tier in enumerate(inc.rates):
            if tier.value is not None and tier.rate is not None and tier.value != tier.rate:
                c.add(w(f"{op}.incentive.rates[{t_i}]"), "tier has both value and rate, and they differ",
                      f"value={tier.value}, rate={tier.rate}", "one of them (or equal)")
            if tier.value is None and tier.rate is None:
                c.add(w(f"{op}.incentive.rates[{t_i}]"), "tier has no rate", None, "a value or rate")
            keys.append(_tier_key(tier, offer.calculator_key))
        _dupes(c, lambda i: w(f"{op}.incentive.rates[{i}].key"), keys, "tier")
        _dupes(c, lambda i: w(f"{op}.incentive.rates[{i}].threshold"),
               [number_text(t.threshold) for t in inc.rates], "tier threshold")
    elif isinstance(inc, StackedIncentive):
        sets = {s.key: s for s in inc.sku_sets}
        _dupes(c, lambda i: w(f"{op}.incentive.sku_sets[{i}].key"), [s.key for s in inc.sku_sets], "SKU set")
        for s_i, s in enumerate(inc.sku_sets):
            sp = f"{op}.incentive.sku_sets[{s_i}]"
            _check_period_and_type(c, w, sp, s.period_key, s.transaction_type, periods)
            _dupes(c, lambda i: w(f"{sp}.conversion.rates[{i}].sku_key"),
                   [r.sku_key for r in s.conversion.rates], "conversion SKU")
            _dupes(c, lambda i: w(f"{sp}.rates[{i}].sku_key"), [r.sku_key for r in s.rates], "rate SKU")
            converted = {r.sku_key for r in s.conversion.rates}
            for r_i, r in enumerate(s.conversion.rates):
                if r.rate <= 0:
                    c.add(w(f"{sp}.conversion.rates[{r_i}].rate"), "conversion rate must be positive", r.rate,
                          "a number > 0 (units of `from` per coverage unit)")
            for r_i, r in enumerate(s.rates):
                if r.sku_key not in converted:
                    c.add(w(f"{sp}.rates[{r_i}].sku_key"), "SKU has a rate but no conversion rate", r.sku_key,
                          "one of the set's conversion SKUs: " + ", ".join(sorted(converted)))
        stack_keys = []
        for k_i, st in enumerate(inc.stacks):
            kp = f"{op}.incentive.stacks[{k_i}]"
            stack_keys.append(st.key or "_and_".join(st.sku_set_keys))
            _dupes(c, lambda i: w(f"{kp}.sku_set_keys[{i}]"), list(st.sku_set_keys), "stack SKU set")
            owner: dict[str, str] = {}
            for name in st.sku_set_keys:
                if name not in sets:
                    c.add(w(f"{kp}.sku_set_keys"), "stack names a SKU set that is not defined", name,
                          "one of " + ", ".join(sorted(sets)))
                    continue
                for r in sets[name].conversion.rates:
                    if r.sku_key in owner and owner[r.sku_key] != name:
                        c.add(w(f"{kp}.sku_set_keys"), f"SKU {r.sku_key!r} is in two sets of this stack",
                              f"{owner[r.sku_key]} and {name}", "each SKU in one set of a stack")
                    owner.setdefault(r.sku_key, name)
        _dupes(c, lambda i: w(f"{op}.incentive.stacks[{i}].key"), stack_keys, "stack")


# ----------------------------------------------------------------------------- generate

def _standard_key(key: str | None, period_key: str | None, transaction_type: str | None) -> str:
    return key or f"{period_key or 'any'}_{transaction_type or 'any'}"


def _tier_key(tier: Any, calculator: str) -> str:
    if tier.key:
        return tier.key
    value = tier.value if tier.value is not None else tier.rate
    measure = tier.measure or DEFAULT_MEASURE[calculator]
    return f"{number_text(value) if value is not None else 'none'}_{measure}_greater_than_or_equal_to_{number_text(tier.threshold)}"


class _Generator:
    def __init__(self) -> None:
        self.rules = RuleSet()
        self.bounds: set[dt.date] = set()
        # filter id -> its entries: (transaction type or None, start, end, SKU keys or (None,))
        self.filters: dict[int, list[tuple[str | None, str, str, Sequence[str | None]]]] = {}
        self.numbers = _NumberTexts()

    def period(self, periods: dict[str, TimePeriod], key: str | None, cut: bool = False) -> tuple[dt.date, dt.date]:
        """A period's dates (open when absent). `cut`: filters pre-aggregate on time buckets, so
        their period bounds cut the buckets; earning rules match transactions directly."""
        if key is None:
            return MIN_DATE, MAX_DATE
        p = periods[key]
        if cut:
            self.bounds.add(p.start_date)
            if p.end_date < MAX_DATE:
                self.bounds.add(p.end_date + dt.timedelta(days=1))
        return p.start_date, p.end_date

    def filter_id(self, filters: list[Filter] | None, periods: dict[str, TimePeriod]) -> int | None:
        """Id of a filter group (a union of entries); identical groups share one id. None: no entries."""
        rows: set[tuple[str | None, str | None, str, str]] = set()
        entries = []
        for f in filters or []:
            start, end = self.period(periods, f.period_key, cut=True)
            entry = (f.transaction_type, start.isoformat(), end.isoformat())
            skus: Sequence[str | None] = f.sku_keys or (None,)
            rows.update(zip(skus, *map(repeat, entry)))
            entries.append((*entry, skus))
        if not rows:
            return None
        try:  # plain text compares natively; a NULL met in a comparison needs the key (NULL as '')
            canon = sorted(rows)
        except TypeError:
            canon = sorted(rows, key=lambda r: tuple("" if v is None else v for v in r))
        fid = stable_id("filter", canon)
        self.filters.setdefault(fid, entries)
        return fid

    def qualification(self, program: Program, offer: Offer | None, q: Qualification,
                      periods: dict[str, TimePeriod]) -> None:
        level = "program" if offer is None else "offer"
        qid = stable_id("qualification", program.key, offer.key if offer else None, q.key)
        fid = num = den = None
        divisor = None
        if q.type in FILTER_TYPES:
            fid = self.filter_id(q.filters, periods)
        elif q.type in RATIO_TYPES:
            num = self.filter_id(q.numerator.filters if q.numerator else None, periods)
            den = self.filter_id(q.denominator.filters if q.denominator else None, periods)
            if q.type == "amount_average_index":
                divisor = (q.denominator.divisor if q.denominator and q.denominator.divisor is not None else Decimal(1))
        is_bool = isinstance(q.value, bool)
        value = Decimal(int(q.value)) if is_bool else q.value
        has_brand_list = bool(q.brand_keys) if q.type == "brand_count" else False
        self.rules.tables["qualifications"].append((
            qid, program.key, offer.key if offer else None, q.key, level, q.type, q.operator,
            number_text(value), is_bool, fid, num, den, number_text(divisor) if divisor is not None else None,
            q.property.key if q.type == "property" and q.property else None,
            q.property.level if q.type == "property" and q.property else None,
            has_brand_list,
        ))
        if q.type == "brand_count":
            for brand in sorted(set(q.brand_keys or [])):
                self.rules.tables["qualification_brand_rules"].append((qid, "brand", brand))
            for sku in sorted(set(q.excluded_sku_keys or [])):
                self.rules.tables["qualification_brand_rules"].append((qid, "excluded_sku", sku))

    def qualifier(self, program: Program, offer: Offer | None, text: str | None) -> None:
        for term_id, term in enumerate(qx.to_dnf(qx.parse(text)), start=1):
            for key in term:
                self.rules.tables["qualifier_terms"].append((program.key, offer.key if offer else None, term_id, key))

    def offer(self, program: Program, offer: Offer, periods: dict[str, TimePeriod]) -> None:
        t = self.rules.tables
        threshold: tuple[Any, ...] = (None, None, None, None)
        earning = None
        calc = offer.calculator_key
        if offer.strategy_key == "standard":
            rows = t["standard_rates"]
            numbers = self.numbers
            default_measure = DEFAULT_MEASURE[calc]
            for inc in offer.incentives or []:
                key = _standard_key(inc.key, inc.period_key, inc.transaction_type)
                start, end = self.period(periods, inc.period_key)
                pk, ok, ttype, s, e = program.key, offer.key, inc.transaction_type, start.isoformat(), end.isoformat()
                rows.extend([(pk, ok, key, r.sku_key, ttype, s, e, r.measure or default_measure, numbers[r.rate])
                             for r in inc.rates])
        elif offer.strategy_key == "stepped":
            inc = parse_incentive(offer)
            assert isinstance(inc, SteppedIncentive)
            td = inc.threshold_definition
            if td.type == "property":
                assert td.property is not None
                threshold = ("property", None, td.property.key, td.property.level)
            else:
                threshold = (td.type, self.filter_id(td.filters, periods), None, None)
            earning = self.filter_id(inc.filters, periods)
            for rank, tier in enumerate(sorted(inc.rates, key=lambda x: x.threshold), start=1):
                rate = tier.value if tier.value is not None else tier.rate
                t["stepped_tiers"].append((
                    program.key, offer.key, _tier_key(tier, calc), number_text(tier.threshold),
                    number_text(rate) if rate is not None else None, tier.measure or DEFAULT_MEASURE[calc], rank,
                ))
        elif offer.strategy_key == "stacked":
            inc = parse_incentive(offer)
            assert isinstance(inc, StackedIncentive)
            for s in inc.sku_sets:
                start, end = self.period(periods, s.period_key)
                pay = {r.sku_key: r for r in s.rates}
                for conv in s.conversion.rates:
                    r = pay.get(conv.sku_key)
                    t["stacked_set_skus"].append((
                        program.key, offer.key, s.key, conv.sku_key, s.transaction_type, start.isoformat(),
                        end.isoformat(), conv.from_, number_text(conv.rate), number_text(r.rate) if r else "0",
                        (r.measure if r and r.measure else DEFAULT_MEASURE[calc]),
                    ))
            for st in inc.stacks:
                key = st.key or "_and_".join(st.sku_set_keys)
                for name in st.sku_set_keys:
                    t["stacked_stacks"].append((program.key, offer.key, key, name))
        t["offers"].append((program.key, offer.key, offer.strategy_key, calc, *threshold, earning))

    def buckets(self) -> None:
        bounds = sorted(b for b in self.bounds if b > MIN_DATE)
        starts = [MIN_DATE, *bounds]
        for i, start in enumerate(starts):
            end = bounds[i] - dt.timedelta(days=1) if i < len(bounds) else MAX_DATE
            self.rules.tables["time_buckets"].append((i + 1, start.isoformat(), end.isoformat()))

    def filter_keys(self) -> None:
        """Each filter group as the (SKU or any, transaction type, time bucket) keys it matches.

        The keys of a group never overlap, so summing the pre-aggregated rows that join them counts
        every transaction once (the union of entries) without a de-duplication in SQL: entry dates
        become the buckets they contain (bucket bounds include every filter period's bounds), an
        absent transaction type becomes the known types, and a SKU key is dropped where the group
        also has an any-SKU key for the same type and bucket.
        """
        buckets = self.rules.tables["time_buckets"]
        starts = [b[1] for b in buckets]
        ends = [b[2] for b in buckets]
        bucket_ids = [b[0] for b in buckets]
        spans: dict[tuple[str, str], list[int]] = {}
        out = self.rules.tables["filter_keys"]
        every_type = tuple(sorted(TRANSACTION_TYPES))
        # emitted in the tables' order (RuleSet.sorted then finds them sorted): by filter id, the
        # any-SKU keys first, then by SKU, type and bucket
        for fid in sorted(self.filters):
            head = (fid,)
            parts = []
            for ttype, start, end, skus in self.filters[fid]:
                span = spans.get((start, end))
                if span is None:
                    first = bisect.bisect_left(starts, start)
                    last = bisect.bisect_left(ends, end)
                    span = spans[(start, end)] = bucket_ids[first:last + 1]
                parts.append((skus, (ttype,) if ttype else every_type, span))
            if len(parts) == 1:  # one entry: SKU keys or (None,) (any SKU), nothing to drop
                skus, types, span = parts[0]
                out.extend(map(head.__add__, product(skus if None in skus else sorted(set(skus)), types, span)))
                continue
            keys: set[tuple[str | None, str, int]] = set()
            for skus, types, span in parts:
                keys.update(product(skus, types, span))
            any_sku = sorted((t, b) for sku, t, b in keys if sku is None)
            covered = set(any_sku)
            out.extend((fid, None, t, b) for t, b in any_sku)
            out.extend(map(head.__add__, sorted(k for k in keys if k[0] is not None and (k[1], k[2]) not in covered)))


def generate(typed: list[tuple[int, Program, Any]]) -> RuleSet:
    """Rule tables for validated programs."""
    g = _Generator()
    for _, program, _ in typed:
        g.rules.programs += 1
        program_periods = {p.key: p for p in program.time_periods}
        for q in program.qualifications:
            g.qualification(program, None, q, program_periods)
        g.qualifier(program, None, program.qualifier)
        for offer in program.offers:
            g.rules.offers += 1
            periods = {**program_periods, **{p.key: p for p in offer.time_periods}}
            for q in offer.qualifications:
                g.qualification(program, offer, q, periods)
            g.qualifier(program, offer, offer.qualifier)
            g.offer(program, offer, periods)
    g.buckets()
    g.filter_keys()
    return g.rules.sorted()


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: compiling allocates millions of small, acyclic objects
    (JSON values, models, rows), and every collection would walk all of them again. Reference
    counting still frees everything; the collector resumes (if it was on) afterwards. Let the
    large temporaries go before the block ends: the first collection after it walks whatever
    the block allocated and is still alive."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@dataclass(frozen=True)
class RejectedProgram:
    """One problem of a program left out by `compile_text(skip_invalid=True)`: a row of the table
    rejected_programs (a program with several problems has several)."""

    program_index: int
    program_key: str | None
    json_path: str  # e.g. programs[1].qualifier
    issue: Issue

    def row(self) -> tuple[Any, ...]:
        """(program_index, program_key, json_path, problem, bad_value, expected, message)"""
        i = self.issue
        return (self.program_index, self.program_key, self.json_path, i.message, i.value, i.expected, i.render())


_PROGRAM_AT = re.compile(r"^program .*? at (programs\[(\d+)\].*)$", re.DOTALL)  # see _where


def _rejections(raw: list[Any], errors: list[Issue]) -> list[RejectedProgram] | None:
    """The problems of `errors` as rejections of the programs they are located in; None when one
    of them is not located in a program (the file itself is wrong)."""
    out = []
    for issue in errors:
        at = _PROGRAM_AT.match(issue.where)
        if at is None:
            return None
        index = int(at.group(2))
        key = raw[index].get("key") if isinstance(raw[index], dict) else None
        out.append(RejectedProgram(index, key if isinstance(key, str) else None, at.group(1), issue))
    return out


def _compile_text(text: str, source: str, skip_invalid: bool) -> tuple[RuleSet, IssueCollector]:
    raw = parse_json(text, source)
    typed, issues = validate(raw)
    rejected: list[RejectedProgram] = []
    while issues.errors and skip_invalid:
        found = _rejections(raw, issues.errors)
        if found is None:
            break
        rejected += found
        # validated again without them: a check across programs (a duplicate key) may have named
        # a program that is left out
        typed, issues = validate(raw, frozenset(r.program_index for r in rejected))
    if issues.errors:
        raise ProgramError(f"{source}: the programs cannot be compiled", issues.issues)
    if rejected and not typed:
        raise ProgramError(f"{source}: every program has problems; nothing to compute",
                           [r.issue for r in rejected])
    rules = generate(typed)
    rules.rejected = sorted(set(rejected), key=lambda r: (r.program_index, r.issue))
    return rules, issues


def compile_text(text: str, source: str = "programs", skip_invalid: bool = False) -> tuple[RuleSet, IssueCollector]:
    """Parse, validate and generate; raises ProgramError listing every problem at once.

    `skip_invalid`: the programs with problems are left out instead (listed in the result's
    `rejected`, with the messages they would have been refused with); the file is still refused
    when it is not a catalogue of programs, or when every program has problems."""
    with gc_paused():  # the JSON values and models are freed when _compile_text returns
        result = _compile_text(text, source, skip_invalid)
    return result


def _csv_value(v: Any) -> Any:
    return "" if v is None else (str(v).lower() if isinstance(v, bool) else v)


def _csv_lines(rows: list[tuple[Any, ...]]) -> str | None:
    """The rows as the csv module writes them (NULL empty, booleans true / false), joined
    directly when no field needs quoting: None when one might (or a value is of another type)."""
    if not rows:
        return ""
    widths = set(map(len, rows))
    width = widths.pop()
    if widths or width < 2:
        return None
    try:  # only text
        text = "\n".join(map(",".join, rows)) + "\n"
    except TypeError:
        columns: list[Any] = list(zip(*rows))
        for i, values in enumerate(columns):
            kinds = set(map(type, values))
            if kinds == {str}:
                continue
            if kinds == {int}:
                columns[i] = list(map(str, values))
            elif kinds == {str, type(None)}:
                columns[i] = ["" if v is None else v for v in values]
            elif kinds <= {str, int, bool, type(None)}:
                columns[i] = list(map(str, map(_csv_value, values)))
            else:
                return None
        text = "\n".join(map(",".join, zip(*columns))) + "\n"
    # a field holding a delimiter, a quote or a line break would need quoting: leave it to csv
    if '"' in text or "\r" in text or text.count("\n") != len(rows) or text.count(",") != len(rows) * (width - 1):
        return None
    return text


def _table_text(name: str, rows: list[tuple[Any, ...]]) -> tuple[str, str | None]:
    """(the header line, the rows as CSV text) of a rule table without its catalogue hash; the rows
    are None when a field needs quoting (then written by the csv module)."""
    return ",".join(TABLES[name]), _csv_lines(rows)


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w") as fh:  # the same text mode as Path.write_text
        fh.write(text)
    os.replace(tmp, path)


def write_rules(rules: RuleSet, out_dir: os.PathLike[str] | str, source: str = "programs",
                status: str = "compiled") -> list[str]:
    """Write each rule table as a dbt seed (deterministic CSV), the catalogue seed and the seeds'
    properties file (column types, docs, data tests) into `out_dir`.

    Every table gets the column catalogue_hash: 16 hex digits of the sha256 of all the compiled
    tables, so a data test finds a table left from another compile."""
    path = Path(out_dir)
    path.mkdir(parents=True, exist_ok=True)
    written = []
    with gc_paused():
        texts: dict[str, tuple[str, str | None]] = {}
        digest = hashlib.sha256()
        for name in TABLES:
            header, lines = _table_text(name, rules.tables[name])
            if lines is None:
                buf = io.StringIO()
                csv.writer(buf, lineterminator="\n").writerows([_csv_value(v) for v in row] for row in rules.tables[name])
                digest.update(f"{name}\n{header}\n{buf.getvalue()}".encode())
            else:
                digest.update(f"{name}\n{header}\n{lines}".encode())
            texts[name] = (header, lines)
        catalogue_hash = digest.hexdigest()[:16]
        for name, (header, lines) in texts.items():
            if lines is None:  # a field needs quoting: the csv module writes every row with the hash
                buf = io.StringIO()
                writer = csv.writer(buf, lineterminator="\n")
                writer.writerows([*map(_csv_value, row), catalogue_hash] for row in rules.tables[name])
                lines = buf.getvalue()
            else:  # no field holds a line break (see _csv_lines): the hash ends every line
                lines = lines.replace("\n", f",{catalogue_hash}\n")
            target = path / f"{name}.csv"
            _write_atomically(target, f"{header},{CATALOGUE_HASH}\n{lines}")
            written.append(str(target))
        catalogue = io.StringIO()
        writer = csv.writer(catalogue, lineterminator="\n")
        writer.writerow([c.name for c in CATALOGUE_COLUMNS])
        writer.writerow([catalogue_hash, status, rules.programs, rules.offers, Path(source).name])
        _write_atomically(path / f"{CATALOGUE}.csv", catalogue.getvalue())
        _write_atomically(path / SEEDS_YAML, seeds_yaml())
    return written


def write_failed_compile(out_dir: os.PathLike[str] | str, source: str) -> None:
    """After a compile that failed: empty rule tables and a catalogue saying so, so that no rule
    table looks valid and `dbt build` fails on the test last_compile_succeeded."""
    write_rules(RuleSet(), out_dir, source, status="failed")



# ----------------------------------------------------------------------------- a run's compile step

T = TypeVar("T")


def _compile_and_import_dbt(programs: Path, rules_dir: Path,
                            skip_invalid: bool) -> tuple[str, float, list[RejectedProgram]]:
    """compile_programs, then import dbt: the compile's summary line, the seconds it took and the
    programs left out."""
    started = time.perf_counter()
    line, rejected = compile_programs(programs, rules_dir, skip_invalid)
    seconds = time.perf_counter() - started
    import dbt.cli.main  # noqa: F401  (what run_dbt imports; the adapters are imported by dbt)

    return line, seconds, rejected


def compile_alongside(programs: Path, rules_dir: Path, say: Say, phase: PhaseTimer, load_phase: str,
                      load: Callable[[], T], skip_invalid_programs: bool = False) -> tuple[T, list[RejectedProgram]]:
    """Compile the programs into `rules_dir` in a thread while `load()` runs, and return what
    `load` returned and the programs left out (`skip_invalid_programs`, see compile_text).

    Loading and validating the input files is DuckDB's work, done outside Python's interpreter
    lock, so compiling (Python) and then importing dbt (about a second of Python that would
    otherwise start the build) take no time of their own when the load is longer. When both
    fail, one error lists the problems of the programs and of the data. Phases: `compile` (the
    thread's compiling), `load_phase`, and `wait` for the thread once `load` is done."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="incentives-compile") as pool:
        compiled = pool.submit(_compile_and_import_dbt, programs, rules_dir, skip_invalid_programs)
        try:
            loaded = load()
        except IncentivesError as data_error:
            program_error = compiled.exception()
            if isinstance(program_error, IncentivesError):
                raise IncentivesError(f"{program_error.render()}\n{data_error.title}", data_error.issues) from None
            raise
        phase(load_phase)
        line, seconds, rejected = compiled.result()
    phase("wait")
    phase.alongside("compile", seconds)
    say(line)
    return loaded, rejected


def compile_programs(programs: Path, rules_dir: Path,
                     skip_invalid: bool = False) -> tuple[str, list[RejectedProgram]]:
    """Read and compile the programs file and write its rule tables into `rules_dir` (replaced);
    returns a summary line and the programs left out (`skip_invalid`, see compile_text)."""
    try:
        text = programs.read_text()
    except OSError as exc:
        raise RunError(f"cannot read the programs file {programs}: {exc.strerror}") from None
    rules, _ = compile_text(text, str(programs), skip_invalid)
    if rules_dir.exists():
        shutil.rmtree(rules_dir)
    write_rules(rules, rules_dir)
    line = f"  {rules.programs} programs, {rules.offers} offers -> {sum(len(r) for r in rules.tables.values()):,} rule rows"
    if rules.rejected:
        line += f"; {len({r.program_index for r in rules.rejected})} programs with problems left out"
    return line, rules.rejected

__all__ = ["TABLES", "RuleSet", "compile_text", "write_rules", "write_failed_compile", "parse_json", "validate", "generate"]
