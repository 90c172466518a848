"""Independent plain-Python reference evaluator ("oracle") for the incentive engine.

Written only from ``/work/shared/SEMANTICS.md``, ``/work/main/docs/semantics.md`` and the
API reference texts (qualifications, offers, strategies).  It shares no code with the SQL
engine and is meant to be compared with it row by row in a differential test.

Public API::

    evaluate(programs, tables) -> {"qualification_results": [...],
                                   "potential_earnings": [...],
                                   "offer_results": [...]}

``programs`` is the parsed GET /programs JSON (``{"programs": [...]}`` or a bare list).
``tables`` maps "transactions", "products" and optionally "properties", "waivers",
"prices", "enrollments" to lists of row dicts (a missing key is an empty table).

Numbers: inputs (quantity, amount, price) are rounded half away from zero to 4 places and
property values to 10 (the input contract of docs/semantics.md); program numbers are exact
decimals with at most 10 places. From there on every computation is exact rational arithmetic
(``fractions.Fraction``): sums, products and quotients alike, with nothing rounded on the way.
Only an output column is rounded, once, half away from zero: money to cents, every other number
to 10 places. No rounding step of the SQL engine is copied here, so the two can only agree when
the engine is exact.

Program errors (unknown type / operator / strategy / calculator, unknown period or
qualifier key, ...) raise :class:`ProgramError` (a ``ValueError``).
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

__all__ = ["evaluate", "ProgramError"]

Q2 = Decimal("0.01")
Q4 = Decimal("0.0001")
Q10 = Decimal("1E-10")
ZERO = Fraction(0)
ONE = Fraction(1)
HUNDRED = Fraction(100)

OPERATORS: dict[str, Callable[[Fraction, Fraction], bool]] = {
    "greater_than_or_equal_to": lambda a, t: a >= t,
    "greater_than": lambda a, t: a > t,
    "less_than_or_equal_to": lambda a, t: a <= t,
    "less_than": lambda a, t: a < t,
    "equal_to": lambda a, t: a == t,
}

QUALIFICATION_TYPES = {
    "aggregated_amount",
    "aggregated_quantity",
    "brand_count",
    "yoy_quantity_index",
    "share_of_wallet_percent",
    "yoy_amount_index",
    "amount_average_index",
    "property",
}

VALID_CALCULATORS: dict[str, set[str]] = {
    "standard": {"percent_of_amount", "dollars_per_unit", "fixed_amount"},
    "stepped": {"percent_of_amount", "dollars_per_unit", "fixed_amount"},
    "stacked": {"dollars_per_coverage_unit"},
}
ALL_CALCULATORS = {"percent_of_amount", "dollars_per_unit", "fixed_amount", "dollars_per_coverage_unit"}
# measure of a rate / tier whose `measure` is absent (docs/semantics.md, Offers)
DEFAULT_MEASURE: dict[str, str] = {
    "percent_of_amount": "percent",
    "dollars_per_unit": "dollars",
    "fixed_amount": "dollars",
    "dollars_per_coverage_unit": "dollars",
}


class ProgramError(ValueError):
    """A program definition the engine refuses to compile."""


# --------------------------------------------------------------------------- helpers


def _round_input(x: Decimal, q: Decimal) -> Decimal:
    """An input normalized to its column's type (4 or 10 places), half away from zero."""
    return x.quantize(q, rounding=ROUND_HALF_UP)


def rounded(x: Fraction, places: int) -> Decimal:
    """An exact value rounded once, half away from zero, to `places` decimals (an output column)."""
    units = abs(x) * 10 ** places
    whole = units.numerator // units.denominator
    if units - whole >= Fraction(1, 2):
        whole += 1
    return Decimal(-whole if x < 0 else whole).scaleb(-places)


def r2(x: Fraction) -> Decimal:
    return rounded(x, 2)


def r4(x: Fraction) -> Decimal:
    return rounded(x, 4)


def r10(x: Fraction) -> Decimal:
    return rounded(x, 10)


def exact(x: Decimal) -> Fraction:
    return Fraction(x)


def _key(x: Any) -> Optional[str]:
    """A key column: empty string and None both mean empty (returned as None)."""
    if x is None:
        return None
    s = str(x)
    return s if s != "" else None


def _input_number(x: Any) -> Fraction:
    """quantity / amount / price: Decimal(str(x)) rounded to 4 places. None counts as 0."""
    if x is None or (isinstance(x, str) and x.strip() == ""):
        return ZERO
    try:
        d = Decimal(str(x).strip())
    except InvalidOperation as exc:
        raise ValueError(f"not a number: {x!r}") from exc
    if not d.is_finite():
        raise ValueError(f"not a finite number: {x!r}")
    return exact(_round_input(d, Q4))


def _date(x: Any) -> Optional[_dt.date]:
    if x is None:
        return None
    if isinstance(x, _dt.datetime):
        return x.date()
    if isinstance(x, _dt.date):
        return x
    s = str(x).strip()
    if not s:
        return None
    return _dt.date.fromisoformat(s[:10])


def _program_number(x: Any, what: str) -> Fraction:
    """A number from the program JSON: exact decimal, at most 10 decimal places."""
    if x is None or isinstance(x, bool):
        raise ProgramError(f"{what}: expected a number, got {x!r}")
    try:
        d = Decimal(str(x).strip())
    except InvalidOperation as exc:
        raise ProgramError(f"{what}: not a number: {x!r}") from exc
    if not d.is_finite():
        raise ProgramError(f"{what}: not a finite number: {x!r}")
    if d != d.quantize(Q10, rounding=ROUND_HALF_UP):
        raise ProgramError(f"{what}: more than 10 decimal places: {x!r}")
    return exact(d)


def _fmt_number(x: Fraction) -> str:
    """Number without trailing zeros, never in exponent notation (15.0 -> 15, 1.90 -> 1.9)."""
    n = r10(x).normalize()
    if n == 0:
        return "0"
    return format(n, "f")


_NUMBER_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def parse_number(text: Optional[str]) -> Optional[Fraction]:
    """A property value read as a number (rounded to 10 places); None when it does not parse."""
    if text is None:
        return None
    s = str(text).strip()
    if not _NUMBER_RE.match(s):
        return None
    try:
        return exact(_round_input(Decimal(s), Q10))
    except InvalidOperation:
        return None


def parse_boolean(text: Optional[str]) -> Optional[Fraction]:
    """A property value read as a boolean: 1 for true/1, 0 for false/0 (any case); else None."""
    if text is None:
        return None
    s = str(text).strip().lower()
    if s in ("true", "1"):
        return ONE
    if s in ("false", "0"):
        return ZERO
    return None


# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True)
class Txn:
    transaction_id: Optional[str]
    entity_id: Optional[str]
    transaction_type: Optional[str]
    transaction_date: Optional[_dt.date]
    sku_key: Optional[str]
    quantity: Fraction
    uom_key: Optional[str]
    amount: Fraction
    value: Fraction


Period = tuple[Optional[_dt.date], Optional[_dt.date]]


def _covers(start: Optional[_dt.date], end: Optional[_dt.date], d: Optional[_dt.date]) -> bool:
    if d is None:
        return False
    if start is not None and d < start:
        return False
    if end is not None and d > end:
        return False
    return True


class PriceBook:
    """Program price per SKU and date (latest start wins, then latest end, then lowest price)."""

    def __init__(self, rows: Iterable[Mapping[str, Any]]):
        self._by_sku: dict[str, list[tuple[Optional[_dt.date], Optional[_dt.date], Fraction]]] = {}
        for row in rows:
            sku = _key(row.get("sku_key"))
            if sku is None or row.get("price") is None:
                continue
            self._by_sku.setdefault(sku, []).append(
                (_date(row.get("start_date")), _date(row.get("end_date")), _input_number(row.get("price")))
            )

    def price(self, sku: Optional[str], d: Optional[_dt.date]) -> Optional[Fraction]:
        if sku is None:
            return None
        best: Optional[tuple] = None
        best_price: Optional[Fraction] = None
        for start, end, price in self._by_sku.get(sku, ()):
            if not _covers(start, end, d):
                continue
            # sort key: larger is better
            rank = (
                start if start is not None else _dt.date.min,
                end if end is not None else _dt.date.max,
                -price,
            )
            if best is None or rank > best:
                best, best_price = rank, price
        return best_price


class Properties:
    """Property rows, deduplicated: the smallest text per (level, entity_id, transaction_id, key)."""

    def __init__(self, rows: Iterable[Mapping[str, Any]]):
        self._rows: dict[tuple[str, str, str, str], str] = {}
        self._by_txn: dict[tuple[str, str], str] = {}
        self.entities: set[str] = set()
        for row in rows:
            level = (_key(row.get("level")) or "").lower()
            entity = _key(row.get("entity_id")) or ""
            txn = _key(row.get("transaction_id")) or ""
            key = _key(row.get("key")) or ""
            if level == "entity" and entity:
                self.entities.add(entity)
            value = row.get("value")
            if value is None:
                continue
            text = value if isinstance(value, str) else str(value)
            k = (level, entity, txn, key)
            if k not in self._rows or text < self._rows[k]:
                self._rows[k] = text
            if level == "transaction" and txn:
                tk = (txn, key)
                if tk not in self._by_txn or text < self._by_txn[tk]:
                    self._by_txn[tk] = text

    def lookup(
        self,
        level: str,
        key: str,
        parser: Callable[[Optional[str]], Optional[Fraction]],
        entity_id: Optional[str],
        transaction_id: Optional[str] = None,
    ) -> Optional[Fraction]:
        """The parsed property value, or None when missing (or not parseable)."""
        if level == "request":
            v = parser(self._rows.get(("request", entity_id or "", "", key)))
            if v is None:
                v = parser(self._rows.get(("request", "", "", key)))
            return v
        if level == "entity":
            if not entity_id:
                return None
            return parser(self._rows.get(("entity", entity_id, "", key)))
        if level == "transaction":
            if not transaction_id:
                return None
            return parser(self._by_txn.get((transaction_id, key)))
        raise ProgramError(f"unknown property level {level!r}")


# --------------------------------------------------------------------------- qualifier


@dataclass(frozen=True)
class _Node:
    op: str  # "key", "and", "or"
    key: Optional[str] = None
    children: tuple["_Node", ...] = ()

    def evaluate(self, truth: Mapping[str, bool]) -> bool:
        if self.op == "key":
            return truth[self.key]  # type: ignore[index]
        if self.op == "and":
            return all(c.evaluate(truth) for c in self.children)
        return any(c.evaluate(truth) for c in self.children)

    def keys(self) -> set[str]:
        if self.op == "key":
            return {self.key}  # type: ignore[arg-type]
        out: set[str] = set()
        for c in self.children:
            out |= c.keys()
        return out


_TOKEN_RE = re.compile(r"\(|\)|[^\s()]+")


def parse_qualifier(expr: Optional[str], defined: Iterable[str], where: str) -> Optional[_Node]:
    """Parse a qualifier expression; None (null, absent or blank) means always qualified.

    Grammar: or := and (OR and)* ; and := atom (AND atom)* ; atom := KEY | '(' or ')'.
    Keywords are case-insensitive; AND binds tighter than OR.
    """
    if expr is None:
        return None
    if not isinstance(expr, str):
        raise ProgramError(f"{where}: qualifier must be a string")
    tokens = _TOKEN_RE.findall(expr)
    if not tokens:
        return None
    pos = 0

    def peek() -> Optional[str]:
        return tokens[pos] if pos < len(tokens) else None

    def is_kw(tok: Optional[str], kw: str) -> bool:
        return tok is not None and tok.upper() == kw

    def parse_or() -> _Node:
        nonlocal pos
        items = [parse_and()]
        while is_kw(peek(), "OR"):
            pos += 1
            items.append(parse_and())
        return items[0] if len(items) == 1 else _Node("or", children=tuple(items))

    def parse_and() -> _Node:
        nonlocal pos
        items = [parse_atom()]
        while is_kw(peek(), "AND"):
            pos += 1
            items.append(parse_atom())
        return items[0] if len(items) == 1 else _Node("and", children=tuple(items))

    def parse_atom() -> _Node:
        nonlocal pos
        tok = peek()
        if tok is None:
            raise ProgramError(f"{where}: qualifier {expr!r} ends unexpectedly")
        if tok == "(":
            pos += 1
            node = parse_or()
            if peek() != ")":
                raise ProgramError(f"{where}: qualifier {expr!r}: missing ')'")
            pos += 1
            return node
        if tok == ")" or is_kw(tok, "AND") or is_kw(tok, "OR"):
            raise ProgramError(f"{where}: qualifier {expr!r}: unexpected {tok!r}")
        pos += 1
        return _Node("key", key=tok)

    node = parse_or()
    if pos != len(tokens):
        raise ProgramError(f"{where}: qualifier {expr!r}: unexpected {tokens[pos]!r}")
    defined_set = set(defined)
    unknown = node.keys() - defined_set
    if unknown:
        raise ProgramError(f"{where}: qualifier {expr!r} names undefined qualification(s) {sorted(unknown)}")
    return node


# --------------------------------------------------------------------------- filters


@dataclass(frozen=True)
class Filter:
    period: Optional[Period]  # None = any date
    transaction_type: Optional[str]  # None = any type
    sku_keys: Optional[frozenset[str]]  # None = any sku

    def matches(self, t: Txn) -> bool:
        if self.transaction_type is not None and t.transaction_type != self.transaction_type:
            return False
        if self.sku_keys is not None and t.sku_key not in self.sku_keys:
            return False
        if self.period is not None and not _covers(self.period[0], self.period[1], t.transaction_date):
            return False
        return True


def _resolve_period(period_key: Any, periods: Mapping[str, Period], where: str) -> Optional[Period]:
    pk = _key(period_key)
    if pk is None:
        return None
    if pk not in periods:
        raise ProgramError(f"{where}: unknown period_key {pk!r}")
    return periods[pk]


def _compile_filters(raw: Any, periods: Mapping[str, Period], where: str) -> list[Filter]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ProgramError(f"{where}: filters must be a list")
    out = []
    for entry in raw:
        entry = entry or {}
        skus = entry.get("sku_keys")
        sku_set = None
        if skus:
            sku_set = frozenset(s for s in (_key(x) for x in skus) if s is not None)
        out.append(
            Filter(
                period=_resolve_period(entry.get("period_key"), periods, where),
                transaction_type=_key(entry.get("transaction_type")),
                sku_keys=sku_set,
            )
        )
    return out


def _matching(txns: Sequence[Txn], filters: Sequence[Filter]) -> list[Txn]:
    """Union of the filter entries: each transaction at most once."""
    return [t for t in txns if any(f.matches(t) for f in filters)]


def _compile_periods(raw: Any, where: str) -> dict[str, Period]:
    out: dict[str, Period] = {}
    for p in raw or []:
        k = _key(p.get("key"))
        if k is None:
            raise ProgramError(f"{where}: time period without key")
        if k in out:
            raise ProgramError(f"{where}: duplicate time period {k!r}")
        out[k] = (_date(p.get("start_date")), _date(p.get("end_date")))
    return out


# --------------------------------------------------------------------------- qualifications


@dataclass
class Qualification:
    key: str
    type: str
    operator: str
    value: Fraction  # target value (booleans: 1 / 0)
    filters: list[Filter] = field(default_factory=list)
    numerator: list[Filter] = field(default_factory=list)
    denominator: list[Filter] = field(default_factory=list)
    divisor: Fraction = ONE
    brand_keys: frozenset[str] = frozenset()
    excluded_sku_keys: frozenset[str] = frozenset()
    property_key: str = ""
    property_type: str = "number"
    property_level: str = "request"


@dataclass
class QualOutcome:
    target: Optional[Fraction]
    actual: Optional[Fraction]
    difference: Optional[Fraction]
    met: bool


def _bool_value(x: Any, where: str) -> Fraction:
    if isinstance(x, bool):
        return ONE if x else ZERO
    v = parse_boolean(None if x is None else str(x))
    if v is None:
        raise ProgramError(f"{where}: boolean value expected, got {x!r}")
    return v


def _compile_qualification(raw: Mapping[str, Any], periods: Mapping[str, Period], where: str) -> Qualification:
    qtype = raw.get("type")
    key = _key(raw.get("key"))
    w = f"{where} qualification {key!r}"
    if key is None:
        raise ProgramError(f"{where}: qualification without key")
    if qtype not in QUALIFICATION_TYPES:
        raise ProgramError(f"{w}: unknown type {qtype!r}")
    op = raw.get("operator")
    if op not in OPERATORS:
        raise ProgramError(f"{w}: unknown operator {op!r}")
    q = Qualification(key=key, type=qtype, operator=op, value=ZERO)
    if qtype == "property":
        prop = raw.get("property") or {}
        q.property_key = _key(prop.get("key")) or ""
        if not q.property_key:
            raise ProgramError(f"{w}: property.key missing")
        q.property_type = prop.get("type") or "number"
        q.property_level = prop.get("level") or "request"
        if q.property_level == "transaction":
            raise ProgramError(f"{w}: a property qualification cannot be at transaction level")
        if q.property_level not in ("request", "entity"):
            raise ProgramError(f"{w}: unknown property level {q.property_level!r}")
        if q.property_type == "boolean":
            if op != "equal_to":
                raise ProgramError(f"{w}: boolean property allows only equal_to")
            q.value = _bool_value(raw.get("value"), w)
        elif q.property_type == "number":
            q.value = _program_number(raw.get("value"), f"{w} value")
        else:
            raise ProgramError(f"{w}: unknown property type {q.property_type!r}")
        return q
    q.value = _program_number(raw.get("value"), f"{w} value")
    if qtype in ("aggregated_amount", "aggregated_quantity", "brand_count"):
        q.filters = _compile_filters(raw.get("filters"), periods, w)
        if qtype == "brand_count":
            q.brand_keys = frozenset(b for b in (_key(x) for x in raw.get("brand_keys") or []) if b)
            q.excluded_sku_keys = frozenset(s for s in (_key(x) for x in raw.get("excluded_sku_keys") or []) if s)
        return q
    num = raw.get("numerator") or {}
    den = raw.get("denominator") or {}
    q.numerator = _compile_filters(num.get("filters"), periods, f"{w} numerator")
    q.denominator = _compile_filters(den.get("filters"), periods, f"{w} denominator")
    if qtype == "amount_average_index":
        div = den.get("divisor", raw.get("divisor"))
        q.divisor = ONE if div is None else _program_number(div, f"{w} divisor")
        if q.divisor == 0:
            raise ProgramError(f"{w}: divisor is 0")
    return q


def _sum_value(txns: Iterable[Txn]) -> Fraction:
    return sum((t.value for t in txns), ZERO)


def _sum_quantity(txns: Iterable[Txn]) -> Fraction:
    return sum((t.quantity for t in txns), ZERO)


def _evaluate_qualification(
    q: Qualification,
    entity_id: str,
    txns: Sequence[Txn],
    brands: Mapping[str, Optional[str]],
    props: Properties,
) -> QualOutcome:
    cmp = OPERATORS[q.operator]
    if q.type == "property":
        target = q.value
        parser = parse_boolean if q.property_type == "boolean" else parse_number
        actual = props.lookup(q.property_level, q.property_key, parser, entity_id)
        if actual is None:
            return QualOutcome(target, None, None, False)
        diff = None if q.property_type == "boolean" else actual - target
        return QualOutcome(target, actual, diff, cmp(actual, target))
    if q.type == "aggregated_amount":
        actual = _sum_value(_matching(txns, q.filters))
        return QualOutcome(q.value, actual, actual - q.value, cmp(actual, q.value))
    if q.type == "aggregated_quantity":
        actual = _sum_quantity(_matching(txns, q.filters))
        return QualOutcome(q.value, actual, actual - q.value, cmp(actual, q.value))
    if q.type == "brand_count":
        per_brand: dict[str, Fraction] = {}
        for t in _matching(txns, q.filters):
            if t.sku_key in q.excluded_sku_keys:
                continue
            brand = brands.get(t.sku_key) if t.sku_key is not None else None
            if brand is None:
                continue
            if q.brand_keys and brand not in q.brand_keys:
                continue
            per_brand[brand] = per_brand.get(brand, ZERO) + t.quantity
        actual = Fraction(sum(1 for v in per_brand.values() if v > 0))
        return QualOutcome(q.value, actual, actual - q.value, cmp(actual, q.value))
    # numerator / denominator types
    if q.type == "yoy_quantity_index":
        actual = _sum_quantity(_matching(txns, q.numerator))
        den = _sum_quantity(_matching(txns, q.denominator))
    else:
        actual = _sum_value(_matching(txns, q.numerator))
        den = _sum_value(_matching(txns, q.denominator))
    if q.type == "amount_average_index":
        target = den / q.divisor * q.value / HUNDRED
    else:
        target = den * q.value / HUNDRED
    met = cmp(actual, target)
    if q.type in ("yoy_quantity_index", "yoy_amount_index", "amount_average_index") and den <= 0:
        met = True
    return QualOutcome(target, actual, actual - target, met)


def _compile_qualifications(raw: Any, periods: Mapping[str, Period], where: str) -> list[Qualification]:
    out: list[Qualification] = []
    seen: set[str] = set()
    for r in raw or []:
        q = _compile_qualification(r or {}, periods, where)
        if q.key in seen:
            raise ProgramError(f"{where}: duplicate qualification key {q.key!r}")
        seen.add(q.key)
        out.append(q)
    return out


# --------------------------------------------------------------------------- offers


@dataclass
class StandardEntry:
    rate_key: str
    filter: Filter  # period + transaction type; sku restriction via rates
    rates: dict[str, tuple[Fraction, Optional[str]]]  # sku -> (rate, measure)


@dataclass
class Tier:
    key: str
    threshold: Fraction
    value: Fraction
    measure: Optional[str]


@dataclass
class SteppedIncentive:
    filters: list[Filter]
    threshold_type: str
    threshold_filters: list[Filter]
    property_key: str
    property_type: str
    property_level: str
    tiers: list[Tier]  # highest threshold first


@dataclass
class SkuSet:
    key: str
    filter: Filter  # period + transaction type
    conversion: dict[str, tuple[Fraction, Optional[str]]]  # sku -> (units of `from` per coverage unit, from)
    rates: dict[str, tuple[Fraction, str]]  # sku -> (rate, measure)

    def matches(self, t: Txn) -> bool:
        if t.sku_key is None or t.sku_key not in self.conversion:
            return False
        if not self.filter.matches(t):
            return False
        uom_from = self.conversion[t.sku_key][1]
        return uom_from is None or t.uom_key == uom_from


@dataclass
class Stack:
    key: str
    set_keys: list[str]


@dataclass
class Offer:
    key: str
    strategy: str
    calculator: str
    qualifications: list[Qualification]
    qualifier: Optional[_Node]
    standard: list[StandardEntry] = field(default_factory=list)
    stepped: Optional[SteppedIncentive] = None
    sku_sets: dict[str, SkuSet] = field(default_factory=dict)
    stacks: list[Stack] = field(default_factory=list)


@dataclass
class Program:
    key: str
    qualifications: list[Qualification]
    qualifier: Optional[_Node]
    offers: list[Offer]


def _rate_of(raw: Mapping[str, Any], where: str, allow_value: bool = True) -> Fraction:
    has_rate = raw.get("rate") is not None
    has_value = allow_value and raw.get("value") is not None
    if has_rate and has_value:
        r = _program_number(raw.get("rate"), f"{where} rate")
        v = _program_number(raw.get("value"), f"{where} value")
        if r != v:
            raise ProgramError(f"{where}: both value and rate given and they differ")
        return r
    if has_rate:
        return _program_number(raw.get("rate"), f"{where} rate")
    if has_value:
        return _program_number(raw.get("value"), f"{where} value")
    raise ProgramError(f"{where}: rate missing")


def _compile_standard(
    raw: Mapping[str, Any], periods: Mapping[str, Period], calculator: str, w: str
) -> list[StandardEntry]:
    entries: list[StandardEntry] = []
    seen: set[str] = set()
    for inc in raw.get("incentives") or []:
        pk = _key(inc.get("period_key"))
        tt = _key(inc.get("transaction_type"))
        rate_key = _key(inc.get("key")) or f"{pk or 'any'}_{tt or 'any'}"
        if rate_key in seen:
            raise ProgramError(f"{w}: duplicate incentive_rate_key {rate_key!r}")
        seen.add(rate_key)
        flt = Filter(_resolve_period(pk, periods, w), tt, None)
        rates: dict[str, tuple[Fraction, Optional[str]]] = {}
        for r in inc.get("rates") or []:
            sku = _key(r.get("sku_key"))
            if sku is None:
                raise ProgramError(f"{w}: rate without sku_key")
            if sku in rates:
                raise ProgramError(f"{w}: SKU {sku!r} listed twice in incentive {rate_key!r}")
            rates[sku] = (_rate_of(r, f"{w} {rate_key} {sku}"), _key(r.get("measure")) or DEFAULT_MEASURE[calculator])
        entries.append(StandardEntry(rate_key, flt, rates))
    return entries


def _compile_stepped(raw: Mapping[str, Any], periods: Mapping[str, Period], calculator: str, w: str) -> SteppedIncentive:
    inc = raw.get("incentive") or {}
    td = inc.get("threshold_definition") or {}
    ttype = td.get("type")
    th_filters: list[Filter] = []
    pkey, ptype, plevel = "", "number", "request"
    if ttype in ("aggregated_amount", "aggregated_quantity"):
        th_filters = _compile_filters(td.get("filters"), periods, f"{w} threshold")
    elif ttype == "property":
        prop = td.get("property") or {}
        pkey = _key(prop.get("key")) or ""
        if not pkey:
            raise ProgramError(f"{w}: threshold property.key missing")
        ptype = prop.get("type") or "number"
        plevel = prop.get("level") or "request"
        if ptype not in ("number", "boolean"):
            raise ProgramError(f"{w}: unknown property type {ptype!r}")
        if plevel not in ("request", "entity", "transaction"):
            raise ProgramError(f"{w}: unknown property level {plevel!r}")
        if plevel == "transaction" and calculator == "fixed_amount":
            raise ProgramError(f"{w}: fixed_amount cannot use a transaction-level threshold property")
    else:
        raise ProgramError(f"{w}: unknown threshold_definition type {ttype!r}")
    tiers: list[Tier] = []
    seen_keys: set[str] = set()
    seen_thresholds: set[Fraction] = set()
    for r in inc.get("rates") or []:
        threshold = _program_number(r.get("threshold"), f"{w} tier threshold")
        value = _rate_of(r, f"{w} tier")
        measure = _key(r.get("measure")) or DEFAULT_MEASURE[calculator]
        key = _key(r.get("key")) or (
            f"{_fmt_number(value)}_{measure}_greater_than_or_equal_to_{_fmt_number(threshold)}"
        )
        if key in seen_keys:
            raise ProgramError(f"{w}: duplicate tier key {key!r}")
        if threshold in seen_thresholds:
            raise ProgramError(f"{w}: two tiers with threshold {threshold}")
        seen_keys.add(key)
        seen_thresholds.add(threshold)
        tiers.append(Tier(key, threshold, value, measure))
    tiers.sort(key=lambda t: t.threshold, reverse=True)
    return SteppedIncentive(
        filters=_compile_filters(inc.get("filters"), periods, f"{w} incentive"),
        threshold_type=ttype,
        threshold_filters=th_filters,
        property_key=pkey,
        property_type=ptype,
        property_level=plevel,
        tiers=tiers,
    )


def _compile_stacked(raw: Mapping[str, Any], periods: Mapping[str, Period], w: str) -> tuple[dict[str, SkuSet], list[Stack]]:
    inc = raw.get("incentive") or {}
    sets: dict[str, SkuSet] = {}
    for s in inc.get("sku_sets") or []:
        key = _key(s.get("key"))
        if key is None:
            raise ProgramError(f"{w}: sku_set without key")
        if key in sets:
            raise ProgramError(f"{w}: duplicate sku_set {key!r}")
        flt = Filter(_resolve_period(s.get("period_key"), periods, w), _key(s.get("transaction_type")), None)
        conv: dict[str, tuple[Fraction, Optional[str]]] = {}
        for c in (s.get("conversion") or {}).get("rates") or []:
            sku = _key(c.get("sku_key"))
            if sku is None:
                raise ProgramError(f"{w} set {key}: conversion rate without sku_key")
            if sku in conv:
                raise ProgramError(f"{w} set {key}: SKU {sku!r} listed twice in conversion")
            rate = _rate_of(c, f"{w} set {key} conversion {sku}", allow_value=False)
            if rate <= 0:
                raise ProgramError(f"{w} set {key}: conversion rate of {sku!r} must be > 0")
            conv[sku] = (rate, _key(c.get("from")))
        rates: dict[str, tuple[Fraction, str]] = {}
        for r in s.get("rates") or []:
            sku = _key(r.get("sku_key"))
            if sku is None:
                raise ProgramError(f"{w} set {key}: rate without sku_key")
            if sku in rates:
                raise ProgramError(f"{w} set {key}: SKU {sku!r} listed twice in rates")
            rates[sku] = (_rate_of(r, f"{w} set {key} {sku}"), _key(r.get("measure")) or DEFAULT_MEASURE["dollars_per_coverage_unit"])
        sets[key] = SkuSet(key, flt, conv, rates)
    stacks: list[Stack] = []
    seen: set[str] = set()
    for st in inc.get("stacks") or []:
        set_keys = [k for k in (_key(x) for x in st.get("sku_set_keys") or []) if k is not None]
        if not set_keys:
            raise ProgramError(f"{w}: stack without sku_set_keys")
        for k in set_keys:
            if k not in sets:
                raise ProgramError(f"{w}: stack names unknown sku_set {k!r}")
        if len(set(set_keys)) != len(set_keys):
            raise ProgramError(f"{w}: stack lists a sku_set twice")
        skus_seen: set[str] = set()
        for k in set_keys:
            for sku in sets[k].conversion:
                if sku in skus_seen:
                    raise ProgramError(f"{w}: SKU {sku!r} is in two sets of one stack")
                skus_seen.add(sku)
        key = _key(st.get("key")) or "_and_".join(set_keys)
        if key in seen:
            raise ProgramError(f"{w}: duplicate stack key {key!r}")
        seen.add(key)
        stacks.append(Stack(key, set_keys))
    return sets, stacks


def _compile_offer(raw: Mapping[str, Any], program_periods: Mapping[str, Period], pkey: str) -> Offer:
    okey = _key(raw.get("key"))
    if okey is None:
        raise ProgramError(f"program {pkey!r}: offer without key")
    w = f"offer {okey!r}"
    periods = dict(program_periods)
    periods.update(_compile_periods(raw.get("time_periods"), w))
    strategy = raw.get("strategy_key")
    calculator = raw.get("calculator_key")
    if strategy not in VALID_CALCULATORS:
        raise ProgramError(f"{w}: unknown strategy_key {strategy!r}")
    if calculator not in ALL_CALCULATORS:
        raise ProgramError(f"{w}: unknown calculator_key {calculator!r}")
    if calculator not in VALID_CALCULATORS[strategy]:
        raise ProgramError(f"{w}: calculator {calculator!r} is not valid with strategy {strategy!r}")
    quals = _compile_qualifications(raw.get("qualifications"), periods, w)
    qualifier = parse_qualifier(raw.get("qualifier"), [q.key for q in quals], w)
    offer = Offer(okey, strategy, calculator, quals, qualifier)
    if strategy == "standard":
        offer.standard = _compile_standard(raw, periods, calculator, w)
    elif strategy == "stepped":
        offer.stepped = _compile_stepped(raw, periods, calculator, w)
    else:
        offer.sku_sets, offer.stacks = _compile_stacked(raw, periods, w)
    return offer


def compile_programs(programs: Union[Mapping[str, Any], Sequence[Any]]) -> list[Program]:
    """Validate and compile the GET /programs JSON."""
    if isinstance(programs, Mapping):
        if "programs" not in programs:
            raise ProgramError("programs JSON: expected {'programs': [...]} or a list")
        plist = programs["programs"] or []
    else:
        plist = programs
    out: list[Program] = []
    seen: set[str] = set()
    offer_keys: set[tuple[str, str]] = set()
    for p in plist:
        pkey = _key(p.get("key"))
        if pkey is None:
            raise ProgramError("program without key")
        if pkey in seen:
            raise ProgramError(f"duplicate program {pkey!r}")
        seen.add(pkey)
        w = f"program {pkey!r}"
        periods = _compile_periods(p.get("time_periods"), w)
        quals = _compile_qualifications(p.get("qualifications"), periods, w)
        qualifier = parse_qualifier(p.get("qualifier"), [q.key for q in quals], w)
        offers = []
        for o in p.get("offers") or []:
            offer = _compile_offer(o, periods, pkey)
            if (pkey, offer.key) in offer_keys:
                raise ProgramError(f"{w}: duplicate offer {offer.key!r}")
            offer_keys.add((pkey, offer.key))
            offers.append(offer)
        out.append(Program(pkey, quals, qualifier, offers))
    return out


# --------------------------------------------------------------------------- earnings


def _earning_row(
    entity_id: str,
    program: Program,
    offer: Offer,
    t: Txn,
    rate_key: str,
    measure: Optional[str],
    rate: Fraction,
    pay_rate: Fraction,
    inc_qty: Fraction,
    inc_amt: Fraction,
    incentive: Fraction,
    contribution: Fraction,
) -> dict[str, Any]:
    # each output column rounded once from its exact value; the effective rate is defined on the
    # two reported columns (incentive_amount / incentivized_amount, SEMANTICS)
    inc_qty_out = r10(inc_qty)
    inc_amt_out = r10(inc_amt)
    incentive_out = r2(incentive)
    return {
        "entity_id": entity_id,
        "program_key": program.key,
        "offer_key": offer.key,
        "offer_calculator": offer.calculator,
        "strategy_key": offer.strategy,
        "sku_key": t.sku_key,
        "incentive_rate_key": rate_key,
        "incentive_rate_measure": measure,
        "incentive_rate_value": r10(rate),
        "offer_sku_pay_rate": r10(pay_rate),
        "transaction_id": t.transaction_id,
        "provided_quantity": r4(t.quantity),
        "provided_uom_key": t.uom_key,
        "provided_amount": r4(t.amount),
        "incentivized_quantity": inc_qty_out,
        "incentivized_amount": inc_amt_out,
        "incentive_amount": incentive_out,
        "incentive_contribution_percent": r10(contribution),
        "incentive_effective_rate": None if inc_amt_out == 0 else r10(exact(incentive_out) / exact(inc_amt_out)),
    }


def _simple_rows(
    entity_id: str,
    program: Program,
    offer: Offer,
    txns: Sequence[Txn],
    rate_key: str,
    measure_of: Callable[[Txn], Optional[str]],
    rate_of: Callable[[Txn], Fraction],
) -> list[dict[str, Any]]:
    """percent_of_amount / dollars_per_unit rows (rate chosen per transaction)."""
    rows = []
    for t in txns:
        rate = rate_of(t)
        if offer.calculator == "percent_of_amount":
            pay = rate / HUNDRED
            incentive = t.value * rate / HUNDRED
        else:  # dollars_per_unit
            pay = rate
            incentive = t.quantity * rate
        rows.append(
            _earning_row(entity_id, program, offer, t, rate_key, measure_of(t), rate, pay, t.quantity, t.value, incentive, ONE)
        )
    return rows


def _fixed_rows(
    entity_id: str,
    program: Program,
    offer: Offer,
    txns: Sequence[Txn],
    rate_key: str,
    measure: Optional[str],
    total: Fraction,
) -> list[dict[str, Any]]:
    """fixed_amount: `total` shared over `txns` in proportion to value (nothing when S <= 0)."""
    s = _sum_value(txns)
    if s <= 0:
        return []
    rows = []
    for t in txns:
        incentive = total * t.value / s
        contribution = t.value / s
        rows.append(
            _earning_row(entity_id, program, offer, t, rate_key, measure, total, total, t.quantity, t.value, incentive, contribution)
        )
    return rows


def _standard_earnings(entity_id: str, program: Program, offer: Offer, txns: Sequence[Txn]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for e in offer.standard:
        matched = [t for t in txns if t.sku_key in e.rates and e.filter.matches(t)]
        if offer.calculator == "fixed_amount":
            by_sku: dict[str, list[Txn]] = {}
            for t in matched:
                by_sku.setdefault(t.sku_key, []).append(t)  # type: ignore[arg-type]
            for sku, ts in by_sku.items():
                rate, measure = e.rates[sku]
                rows.extend(_fixed_rows(entity_id, program, offer, ts, e.rate_key, measure, rate))
        else:
            rows.extend(
                _simple_rows(
                    entity_id, program, offer, matched, e.rate_key,
                    lambda t, e=e: e.rates[t.sku_key][1],  # type: ignore[index]
                    lambda t, e=e: e.rates[t.sku_key][0],  # type: ignore[index]
                )
            )
    return rows


def _pick_tier(tiers: Sequence[Tier], value: Optional[Fraction]) -> Optional[Tier]:
    if value is None:
        return None
    for tier in tiers:  # highest threshold first
        if tier.threshold <= value:
            return tier
    return None


def _threshold_value(inc: SteppedIncentive, txns: Sequence[Txn], props: Properties, entity_id: str) -> Optional[Fraction]:
    """A stepped offer's participant-level threshold value: the threshold filters' net value or
    quantity, or the request / entity property (not for a transaction-level property)."""
    if inc.threshold_type == "aggregated_amount":
        return _sum_value(_matching(txns, inc.threshold_filters))
    if inc.threshold_type == "aggregated_quantity":
        return _sum_quantity(_matching(txns, inc.threshold_filters))
    parser = parse_boolean if inc.property_type == "boolean" else parse_number
    return props.lookup(inc.property_level, inc.property_key, parser, entity_id)


def _stepped_earnings(
    entity_id: str, program: Program, offer: Offer, txns: Sequence[Txn], props: Properties
) -> list[dict[str, Any]]:
    inc = offer.stepped
    assert inc is not None
    earning = _matching(txns, inc.filters)
    parser = parse_boolean if inc.property_type == "boolean" else parse_number
    if inc.threshold_type == "property" and inc.property_level == "transaction":
        # each transaction picks its own tier (percent_of_amount / dollars_per_unit only)
        rows: list[dict[str, Any]] = []
        for t in earning:
            tier = _pick_tier(inc.tiers, props.lookup("transaction", inc.property_key, parser, entity_id, t.transaction_id))
            if tier is None:
                continue
            rows.extend(
                _simple_rows(entity_id, program, offer, [t], tier.key, lambda _t, tier=tier: tier.measure,
                             lambda _t, tier=tier: tier.value)
            )
        return rows
    tier = _pick_tier(inc.tiers, _threshold_value(inc, txns, props, entity_id))
    if tier is None:
        return []
    if offer.calculator == "fixed_amount":
        return _fixed_rows(entity_id, program, offer, earning, tier.key, tier.measure, tier.value)
    return _simple_rows(entity_id, program, offer, earning, tier.key, lambda _t: tier.measure, lambda _t: tier.value)


def _stacked_earnings(entity_id: str, program: Program, offer: Offer, txns: Sequence[Txn]) -> list[dict[str, Any]]:
    # per set: its transactions with their coverage, and the set's coverage
    per_set: dict[str, tuple[list[tuple[Txn, Fraction]], Fraction]] = {}
    for key, s in offer.sku_sets.items():
        items = []
        for t in txns:
            if s.matches(t):
                items.append((t, t.quantity / s.conversion[t.sku_key][0]))  # type: ignore[index]
        per_set[key] = (items, sum((c for _, c in items), ZERO))
    rows: list[dict[str, Any]] = []
    for stack in offer.stacks:
        coverages = [per_set[k][1] for k in stack.set_keys]
        overlap = ZERO if any(c <= 0 for c in coverages) else min(coverages)
        if overlap <= 0:
            continue
        for k in stack.set_keys:
            s = offer.sku_sets[k]
            items, set_cov = per_set[k]
            contribution = overlap / set_cov
            for t, c in items:
                rate, measure = s.rates.get(t.sku_key, (ZERO, "dollars"))  # type: ignore[arg-type]
                if rate <= 0:
                    continue  # anchor
                incentive = c * rate * overlap / set_cov
                rows.append(
                    _earning_row(
                        entity_id, program, offer, t, stack.key, measure, rate, rate,
                        t.quantity * contribution, t.value * contribution, incentive, contribution,
                    )
                )
    return rows


# --------------------------------------------------------------------------- driver


def _load_transactions(rows: Iterable[Mapping[str, Any]], prices: PriceBook) -> list[Txn]:
    out = []
    for row in rows:
        sku = _key(row.get("sku_key"))
        d = _date(row.get("transaction_date"))
        qty = _input_number(row.get("quantity"))
        amount = _input_number(row.get("amount"))
        price = prices.price(sku, d)
        value = qty * price if price is not None else amount
        out.append(
            Txn(
                transaction_id=_key(row.get("transaction_id")),
                entity_id=_key(row.get("entity_id")),
                transaction_type=_key(row.get("transaction_type")),
                transaction_date=d,
                sku_key=sku,
                quantity=qty,
                uom_key=_key(row.get("uom_key")),
                amount=amount,
                value=value,
            )
        )
    return out


def _load_brands(rows: Iterable[Mapping[str, Any]]) -> dict[str, Optional[str]]:
    brands: dict[str, Optional[str]] = {}
    for row in rows:
        sku = _key(row.get("sku_key"))
        if sku is None:
            continue
        b = _key(row.get("brand_key"))
        cur = brands.get(sku)
        if b is not None and (cur is None or b < cur):
            brands[sku] = b
        else:
            brands.setdefault(sku, cur)
    return brands


def _q10(x: Optional[Fraction]) -> Optional[Fraction]:
    return None if x is None else r10(x)


def _sort_key(*parts: Any) -> tuple:
    return tuple((p is None, "" if p is None else p) for p in parts)


def evaluate(
    programs: Union[Mapping[str, Any], Sequence[Any]],
    tables: Mapping[str, Sequence[Mapping[str, Any]]],
) -> dict[str, list[dict[str, Any]]]:
    """Evaluate every participant against every (enrolled) program.

    Returns {"qualification_results", "potential_earnings", "offer_results"}, each a list of
    row dicts with exactly the SEMANTICS.md output columns, sorted by natural key.
    """
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.rounding = ROUND_HALF_UP
        return _evaluate(programs, tables)


def _evaluate(
    programs: Union[Mapping[str, Any], Sequence[Any]],
    tables: Mapping[str, Sequence[Mapping[str, Any]]],
    tiers: Optional[dict[tuple[str, str], Optional[str]]] = None,
) -> dict[str, list[dict[str, Any]]]:
    compiled = compile_programs(programs)
    prices = PriceBook(tables.get("prices") or [])
    txns = _load_transactions(tables.get("transactions") or [], prices)
    brands = _load_brands(tables.get("products") or [])
    props = Properties(tables.get("properties") or [])

    waivers: set[tuple[str, str, str, str]] = set()
    for w in tables.get("waivers") or []:
        waivers.add(
            (
                _key(w.get("program_key")) or "",
                _key(w.get("qualification_key")) or "",
                _key(w.get("offer_key")) or "",
                _key(w.get("entity_id")) or "",
            )
        )

    def waived(program_key: str, qual_key: str, offer_key: str, entity_id: str) -> bool:
        return (program_key, qual_key, offer_key, entity_id) in waivers or (
            program_key, qual_key, offer_key, "") in waivers

    enrollment_rows = tables.get("enrollments") or []
    enrolled: Optional[set[tuple[str, str]]] = None
    if len(enrollment_rows) > 0:
        enrolled = set()
        for r in enrollment_rows:
            e, p = _key(r.get("entity_id")), _key(r.get("program_key"))
            if e is not None and p is not None:
                enrolled.add((e, p))

    by_entity: dict[str, list[Txn]] = {}
    for t in txns:
        if t.entity_id is not None:
            by_entity.setdefault(t.entity_id, []).append(t)
    participants = sorted(set(by_entity) | props.entities)

    qual_rows: list[dict[str, Any]] = []
    earn_rows: list[dict[str, Any]] = []
    offer_rows: list[dict[str, Any]] = []

    for entity_id in participants:
        ptxns = by_entity.get(entity_id, [])
        for program in compiled:
            if enrolled is not None and (entity_id, program.key) not in enrolled:
                continue
            prog_out = {
                q.key: _evaluate_qualification(q, entity_id, ptxns, brands, props) for q in program.qualifications
            }
            prog_waived = {q.key: waived(program.key, q.key, "", entity_id) for q in program.qualifications}
            program_qualified = (
                True
                if program.qualifier is None
                else program.qualifier.evaluate({k: prog_out[k].met or prog_waived[k] for k in prog_out})
            )
            for offer in program.offers:
                for q in program.qualifications:
                    o = prog_out[q.key]
                    qual_rows.append(_qual_row(entity_id, program.key, offer.key, q, "program", o, prog_waived[q.key]))
                off_out = {
                    q.key: _evaluate_qualification(q, entity_id, ptxns, brands, props) for q in offer.qualifications
                }
                off_waived = {q.key: waived(program.key, q.key, offer.key, entity_id) for q in offer.qualifications}
                for q in offer.qualifications:
                    qual_rows.append(
                        _qual_row(entity_id, program.key, offer.key, q, "offer", off_out[q.key], off_waived[q.key])
                    )
                offer_qualified = (
                    True
                    if offer.qualifier is None
                    else offer.qualifier.evaluate({k: off_out[k].met or off_waived[k] for k in off_out})
                )
                qualified = program_qualified and offer_qualified
                # the earnings are computed whether or not the offer qualifies: they are what it
                # would pay if it were qualified (potential_if_qualified)
                if offer.strategy == "standard":
                    would_pay = _standard_earnings(entity_id, program, offer, ptxns)
                elif offer.strategy == "stepped":
                    would_pay = _stepped_earnings(entity_id, program, offer, ptxns, props)
                else:
                    would_pay = _stacked_earnings(entity_id, program, offer, ptxns)
                rows: list[dict[str, Any]] = would_pay if qualified else []
                earn_rows.extend(rows)
                potential = sum((r["incentive_amount"] for r in would_pay), Decimal("0.00"))
                next_amount = _next_tier_amount(offer, ptxns, props, entity_id)
                if tiers is not None:
                    tiers[(entity_id, offer.key)] = _current_tier(offer, ptxns, props, entity_id)
                offer_rows.append(
                    {
                        "entity_id": entity_id,
                        "program_key": program.key,
                        "offer_key": offer.key,
                        "program_qualified": bool(program_qualified),
                        "offer_qualified": bool(offer_qualified),
                        "qualified": bool(qualified),
                        "incentive_amount": sum((r["incentive_amount"] for r in rows), Decimal("0.00")),
                        "potential_if_qualified": potential,
                        "next_tier_incentive_amount": next_amount,
                        "next_tier_uplift": None if next_amount is None else next_amount - potential,
                        "blocking_program_qualifications": _blocking(
                            program.qualifier, {k: prog_out[k].met or prog_waived[k] for k in prog_out}),
                        "blocking_offer_qualifications": _blocking(
                            offer.qualifier, {k: off_out[k].met or off_waived[k] for k in off_out}),
                    }
                )

    qual_rows.sort(
        key=lambda r: _sort_key(
            r["entity_id"], r["program_key"], r["offer_key"], r["qualification_key"], r["qualification_level"]
        )
    )
    earn_rows.sort(
        key=lambda r: _sort_key(
            r["entity_id"], r["program_key"], r["offer_key"], r["incentive_rate_key"], r["transaction_id"]
        )
    )
    offer_rows.sort(key=lambda r: _sort_key(r["entity_id"], r["program_key"], r["offer_key"]))
    return {"qualification_results": qual_rows, "potential_earnings": earn_rows, "offer_results": offer_rows}


def _dnf(node: _Node) -> list[frozenset[str]]:
    """The qualifier as OR-of-AND branches (sets of keys), expanded from the parse tree."""
    if node.op == "key":
        return [frozenset([node.key])]  # type: ignore[list-item]
    if node.op == "or":
        return [b for c in node.children for b in _dnf(c)]
    branches = [frozenset()]
    for c in node.children:
        branches = [a | b for a in branches for b in _dnf(c)]
    return branches


def _blocking(qualifier: Optional[_Node], truth: Mapping[str, bool]) -> Optional[str]:
    """The keys neither met nor waived in the branches closest to true (fewest such keys), their
    union sorted and comma-separated; None when the qualifier is true (or absent)."""
    if qualifier is None or qualifier.evaluate(truth):
        return None
    open_keys = [sorted(k for k in branch if not truth[k]) for branch in _dnf(qualifier)]
    fewest = min(len(keys) for keys in open_keys)
    return ",".join(sorted({k for keys in open_keys if len(keys) == fewest for k in keys}))


def _current_tier(offer: Offer, txns: Sequence[Txn], props: Properties, entity_id: str) -> Optional[str]:
    """A stepped offer's tier reached by the participant-level threshold value (None below the
    lowest tier, for a transaction-level property and for other strategies)."""
    inc = offer.stepped
    if offer.strategy != "stepped" or inc is None or (inc.threshold_type == "property" and inc.property_level == "transaction"):
        return None
    tier = _pick_tier(inc.tiers, _threshold_value(inc, txns, props, entity_id))
    return None if tier is None else tier.key


def _next_tier_amount(offer: Offer, txns: Sequence[Txn], props: Properties, entity_id: str) -> Optional[Decimal]:
    """A stepped offer's pay at the tier above the one reached, on its current earning
    transactions (each row rounded to cents; fixed_amount: the tier's total when the earning
    values sum to more than 0); None without a next tier (top tier, no threshold value, or a
    transaction-level property)."""
    inc = offer.stepped
    if offer.strategy != "stepped" or inc is None:
        return None
    if inc.threshold_type == "property" and inc.property_level == "transaction":
        return None
    value = _threshold_value(inc, txns, props, entity_id)
    if value is None:
        return None
    above = [tier for tier in inc.tiers if tier.threshold > value]
    if not above:
        return None
    tier = min(above, key=lambda x: x.threshold)
    earning = _matching(txns, inc.filters)
    if offer.calculator == "fixed_amount":
        return r2(tier.value) if _sum_value(earning) > 0 else Decimal("0.00")
    if offer.calculator == "percent_of_amount":
        return sum((r2(t.value * tier.value / HUNDRED) for t in earning), Decimal("0.00"))
    return sum((r2(t.quantity * tier.value) for t in earning), Decimal("0.00"))


def _qual_row(
    entity_id: str, program_key: str, offer_key: str, q: Qualification, level: str, o: QualOutcome, is_waived: bool
) -> dict[str, Any]:
    return {
        "entity_id": entity_id,
        "program_key": program_key,
        "offer_key": offer_key,
        "qualification_key": q.key,
        "qualification_level": level,
        "qualification_type": q.type,
        "operator": q.operator,
        "target": _q10(o.target),
        "actual": _q10(o.actual),
        "difference": _q10(o.difference),
        "met": bool(o.met),
        "waived": bool(is_waived),
    }


# --------------------------------------------------------------------------- what-if scenarios

_TRANSACTION_COLUMNS = ("transaction_id", "entity_id", "transaction_type", "transaction_date", "sku_key", "quantity",
                        "uom_key", "amount")


def evaluate_scenarios(
    programs: Union[Mapping[str, Any], Sequence[Any]],
    tables: Mapping[str, Sequence[Mapping[str, Any]]],
) -> dict[str, list[dict[str, Any]]]:
    """The what-if scenarios from the inputs alone (docs/scenarios.md): each scenario is the whole
    evaluation run again on the actual inputs plus the scenario's (its transactions added; each of
    its property values replacing the participant's value of the same level and key), and compared
    with the run without it, offer by offer, for the participants it names.

    Returns {"scenario_results", "scenario_earnings"} with the marts' columns (no run_id)."""
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.rounding = ROUND_HALF_UP
        base_tiers: dict[tuple[str, str], Optional[str]] = {}
        base = _evaluate(programs, tables, base_tiers)
        scenario_rows = list(tables.get("scenarios") or [])
        override_rows = list(tables.get("scenario_properties") or [])
        results: list[dict[str, Any]] = []
        earnings: list[dict[str, Any]] = []
        base_offers = {(r["entity_id"], r["offer_key"]): r for r in base["offer_results"]}
        base_passed = _passed(base["qualification_results"])
        for scenario in sorted({_key(r.get("scenario_id")) or "" for r in scenario_rows + override_rows}):
            mine = [r for r in scenario_rows if (_key(r.get("scenario_id")) or "") == scenario]
            overrides = [r for r in override_rows if (_key(r.get("scenario_id")) or "") == scenario]
            named = {_key(r.get("entity_id")) for r in mine + overrides}
            replaced = {((_key(r.get("level")) or "").lower(), _key(r.get("entity_id")), _key(r.get("key"))) for r in overrides}
            within = dict(tables)
            within["transactions"] = [*tables.get("transactions", []), *({c: r.get(c) for c in _TRANSACTION_COLUMNS} for r in mine)]
            within["properties"] = [
                *(p for p in tables.get("properties") or []
                  if _key(p.get("transaction_id")) is not None
                  or ((_key(p.get("level")) or "").lower(), _key(p.get("entity_id")), _key(p.get("key"))) not in replaced),
                *({"level": r.get("level"), "entity_id": r.get("entity_id"), "transaction_id": None, "key": r.get("key"),
                   "value": r.get("value")} for r in overrides)]
            tiers: dict[tuple[str, str], Optional[str]] = {}
            out = _evaluate(programs, within, tiers)
            hypothetical = {_key(r.get("transaction_id")) for r in mine}
            earnings.extend({"scenario_id": scenario, **row, "hypothetical": row["transaction_id"] in hypothetical}
                            for row in out["potential_earnings"] if row["entity_id"] in named)
            passed = _passed(out["qualification_results"])
            for row in out["offer_results"]:
                entity, offer = row["entity_id"], row["offer_key"]
                if entity not in named:
                    continue
                before = base_offers.get((entity, offer))
                levels = {key for key in passed.keys() | base_passed.keys() if key[0] == entity and key[1] == offer}
                met = sorted({key[3] for key in levels if passed.get(key, False) and not base_passed.get(key, False)})
                lost = sorted({key[3] for key in levels if base_passed.get(key, False) and not passed.get(key, False)})
                change = {
                    "scenario_id": scenario, "entity_id": entity, "program_key": row["program_key"], "offer_key": offer,
                    "baseline_incentive_amount": before["incentive_amount"] if before else Decimal("0.00"),
                    "scenario_incentive_amount": row["incentive_amount"],
                    "delta": row["incentive_amount"] - (before["incentive_amount"] if before else Decimal("0.00")),
                    "baseline_qualified": bool(before and before["qualified"]),
                    "scenario_qualified": row["qualified"],
                    "baseline_current_tier_key": base_tiers.get((entity, offer)),
                    "scenario_current_tier_key": tiers.get((entity, offer)),
                    "qualifications_newly_met": ",".join(met) or None,
                    "qualifications_newly_lost": ",".join(lost) or None,
                }
                if (change["delta"] != 0 or change["baseline_qualified"] != change["scenario_qualified"]
                        or change["baseline_current_tier_key"] != change["scenario_current_tier_key"] or met or lost):
                    results.append(change)
        return {"scenario_results": results, "scenario_earnings": earnings}


def _passed(qualification_rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str, str, str], bool]:
    """Per participant x offer x qualification level x key, whether it passes (met or waived)."""
    return {(r["entity_id"], r["offer_key"], r["qualification_level"], r["qualification_key"]): bool(r["met"] or r["waived"])
            for r in qualification_rows}


# --------------------------------------------------------------------------- the forecast

_OPEN_END = _dt.date(9999, 12, 31)


def _plus_years(d: _dt.date, years: int) -> _dt.date:
    """The same day `years` later (or earlier); 29 February -> 28 February."""
    try:
        return d.replace(year=d.year + years)
    except ValueError:
        return d.replace(year=d.year + years, day=28)


def _catalogue_periods(programs: Union[Mapping[str, Any], Sequence[Any]]) -> list[tuple[_dt.date, _dt.date]]:
    items = programs.get("programs", []) if isinstance(programs, Mapping) else programs
    out = []
    for program in items:
        for holder in (program, *(program.get("offers") or [])):
            for p in holder.get("time_periods") or []:
                out.append((_dt.date.fromisoformat(str(p["start_date"])[:10]), _dt.date.fromisoformat(str(p["end_date"])[:10])))
    return out


def _projected(row: Mapping[str, Any], day: _dt.date, g: Fraction) -> dict[str, Any]:
    """The projection of an actual transaction: dated `day`, quantity and amount x g rounded to the
    inputs' 4 places, its id prefixed with ~forecast~."""
    return {**{c: row.get(c) for c in _TRANSACTION_COLUMNS}, "transaction_id": f"~forecast~{_key(row['transaction_id'])}",
            "transaction_date": day.isoformat(), "quantity": str(r4(_input_number(row.get("quantity")) * g)),
            "amount": str(r4(_input_number(row.get("amount")) * g))}


def evaluate_forecast(
    programs: Union[Mapping[str, Any], Sequence[Any]],
    tables: Mapping[str, Sequence[Mapping[str, Any]]],
    as_of: Optional[str] = None,
    until: Optional[str] = None,
    max_growth: int = 3,
) -> dict[str, list[dict[str, Any]]]:
    """The season-end forecast from the inputs alone (docs/forecast.md): each participant's projected
    transactions (seasonal, recent or none), the whole evaluation run again on the actual plus the
    projected transactions, and per participant x offer of offer_results what the season pays and
    what its actual transactions earn within it.

    Returns {"forecast_results"} with the mart's columns (no run_id)."""
    with localcontext() as ctx:
        ctx.prec = 60
        ctx.rounding = ROUND_HALF_UP
        base_tiers: dict[tuple[str, str], Optional[str]] = {}
        base = _evaluate(programs, tables, base_tiers)
        rows = [r for r in tables.get("transactions") or []
                if _key(r.get("entity_id")) is not None and _date(r.get("transaction_date")) is not None]
        day = _dt.date.fromisoformat(as_of) if as_of else max((_date(r["transaction_date"]) for r in rows), default=None)
        if day is None:
            return {"forecast_results": []}
        if until:
            horizon = _dt.date.fromisoformat(until)
        else:
            ends = [end for start, end in _catalogue_periods(programs) if start <= day <= end and end < _OPEN_END]
            horizon = max(ends, default=day)
        lag = (horizon - day).days
        last_year, horizon_last_year = _plus_years(day, -1), _plus_years(horizon, -1)
        season_start = _plus_years(horizon, -1) + _dt.timedelta(days=1)
        prior_start = _plus_years(horizon, -2) + _dt.timedelta(days=1)
        recent_start = day - _dt.timedelta(days=lag - 1)
        by_entity: dict[str, list[Mapping[str, Any]]] = {}
        for r in rows:
            by_entity.setdefault(_key(r["entity_id"]), []).append(r)
        methods: dict[str, tuple[str, Optional[Decimal]]] = {}
        projected: list[dict[str, Any]] = []
        for entity, mine in by_entity.items():
            dated = [(_date(r["transaction_date"]), r) for r in mine]
            seasonal = [r for d, r in dated if last_year < d <= horizon_last_year]
            recent = [r for d, r in dated if recent_start <= d <= day]
            if seasonal:
                current = sum((_input_number(r.get("amount")) for d, r in dated if season_start <= d <= day), ZERO)
                prior = sum((_input_number(r.get("amount")) for d, r in dated if prior_start <= d <= last_year), ZERO)
                g = Fraction(1) if prior <= 0 else min(Fraction(max_growth), max(ZERO, current / prior))
                methods[entity] = ("seasonal", r10(g))
                projected += (_projected(r, _plus_years(_date(r["transaction_date"]), 1), g) for r in seasonal)
            elif recent:
                methods[entity] = ("recent", Decimal(1))
                projected += (_projected(r, _date(r["transaction_date"]) + _dt.timedelta(days=lag), Fraction(1))
                              for r in recent)
            else:
                methods[entity] = ("none", None)
        within = dict(tables)
        within["transactions"] = [*tables.get("transactions", []), *projected]
        tiers: dict[tuple[str, str], Optional[str]] = {}
        out = _evaluate(programs, within, tiers)
        offers = {(r["entity_id"], r["offer_key"]): r for r in out["offer_results"]}
        ids = {r["transaction_id"] for r in projected}
        accrued: dict[tuple[str, str], Decimal] = {}
        for r in out["potential_earnings"]:
            if r["transaction_id"] not in ids:
                key = (r["entity_id"], r["offer_key"])
                accrued[key] = accrued.get(key, Decimal("0.00")) + r["incentive_amount"]
        results = []
        for row in base["offer_results"]:
            entity, offer = row["entity_id"], row["offer_key"]
            method, growth = methods.get(entity, ("none", None))
            earned = row["incentive_amount"]
            if method == "none":
                qualified, tier, season, accrual = row["qualified"], base_tiers.get((entity, offer)), earned, earned
            else:
                after = offers[(entity, offer)]
                qualified, tier = after["qualified"], tiers.get((entity, offer))
                season, accrual = after["incentive_amount"], accrued.get((entity, offer), Decimal("0.00"))
            results.append({
                "entity_id": entity, "program_key": row["program_key"], "offer_key": offer, "as_of": day,
                "horizon": horizon, "method": method, "growth_factor": growth, "earned_to_date": earned,
                "projected_qualified": qualified, "projected_tier_key": tier, "projected_season_amount": season,
                "accrual_to_date": accrual, "accrual_minus_earned": accrual - earned})
        return {"forecast_results": results}
