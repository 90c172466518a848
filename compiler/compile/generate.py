"""Generation of the rule tables from validated, typed programs: qualifiers, time buckets and filter
keys here, each qualification's columns by its kind (compiler/qualifications/) and each offer's
rows by its strategy (compiler/strategies/). Rows are tuples in the column order of
compiler/rule_tables.py, de-duplicated and sorted (deterministic)."""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import chain, product, repeat
from typing import Any, Iterable, Sequence

from ..numbers import number_text
from ..program import qualifier as qx
from ..program.base import Qualification
from ..program.catalogue import Program
from ..program.models import TRANSACTION_TYPES, Filter, TimePeriod
from ..qualifications import REGISTRY as QUALIFICATION_KINDS
from ..rule_tables import TABLES
from ..strategies import REGISTRY

MIN_DATE = dt.date(1, 1, 1)
MAX_DATE = dt.date(9999, 12, 31)


@dataclass
class RuleSet:
    """The compiled rule tables (rows as tuples, in TABLES column order) and a few counts."""

    tables: dict[str, list[tuple[Any, ...]]] = field(default_factory=lambda: {t: [] for t in TABLES})
    programs: int = 0
    offers: int = 0
    # compile_text(skip_invalid=True): the problems of the programs left out (programs.py RejectedProgram)
    rejected: list[Any] = field(default_factory=list)

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


class _NumberTexts(dict):  # type: ignore[type-arg]
    """`number_text` of each decimal, computed once per value (equal decimals have one text)."""

    def __missing__(self, value: Decimal) -> str:
        text = self[value] = number_text(value)
        return text


def stable_id(*parts: Any) -> int:
    """A deterministic positive BIGINT id for a canonical rule (stable across catalogues)."""
    digest = hashlib.sha256(json.dumps(parts, default=str, sort_keys=True).encode()).hexdigest()
    return int(digest[:15], 16)


class Generator:
    """Builds the rule tables of validated programs (see `generate`); what the strategies' and the
    qualification kinds' `emit` is given (`EmitContext` of compiler/emit.py)."""

    def __init__(self) -> None:
        self.rules = RuleSet()
        self.bounds: set[dt.date] = set()
        # filter id -> its entries: (transaction type or None, start, end, SKU keys or (None,))
        self.filters: dict[int, list[tuple[str | None, str, str, Sequence[str | None]]]] = {}
        self.numbers = _NumberTexts()

    def add_row(self, table: str, row: tuple[Any, ...]) -> None:
        self.rules.tables[table].append(row)

    def add_rows(self, table: str, rows: Iterable[tuple[Any, ...]]) -> None:
        self.rules.tables[table].extend(rows)

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

    def qualification(self, program: Program, offer: Any | None, q: Qualification,
                      periods: dict[str, TimePeriod]) -> None:
        """The qualification's `qualifications` row: the columns its kind fills
        (compiler/qualifications/) and the others."""
        qid = stable_id("qualification", program.key, offer.key if offer else None, q.key)
        measure = QUALIFICATION_KINDS[q.type].emit(self, qid, q, periods)
        is_bool = isinstance(q.value, bool)
        value = Decimal(int(q.value)) if is_bool else q.value
        self.rules.tables["qualifications"].append((
            qid, program.key, offer.key if offer else None, q.key, "program" if offer is None else "offer", q.type,
            q.operator, number_text(value), is_bool, *measure))

    def qualifier(self, program: Program, offer: Any | None, text: str | None) -> None:
        for term_id, term in enumerate(qx.to_dnf(qx.parse(text)), start=1):
            for key in term:
                self.rules.tables["qualifier_terms"].append((program.key, offer.key if offer else None, term_id, key))

    def offer(self, program: Program, offer: Any, periods: dict[str, TimePeriod]) -> None:
        """The offer's rows: its strategy's (compiler/strategies/) and its `offers` row."""
        threshold, earning = REGISTRY[offer.strategy_key].emit(self, program, offer, periods)
        self.rules.tables["offers"].append((program.key, offer.key, offer.strategy_key, offer.calculator_key,
                                            *threshold, earning))

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
    g = Generator()
    for _, program, _ in typed:
        g.rules.programs += 1
        program_periods = {p.key: p for p in program.time_periods}
        g.add_rows("periods", ((p.start_date.isoformat(), p.end_date.isoformat())
                               for p in chain(program.time_periods, *(o.time_periods for o in program.offers))))
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
