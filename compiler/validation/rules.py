"""The validation rules of programs, each registered (registry.py). What is specific to a strategy
is checked by its module (compiler/strategies/), called by the rule `strategy_checks`."""

from __future__ import annotations

from typing import Any, Iterator

from ..errors import IssueCollector
from ..program import qualifier as qx
from ..program.models import QUALIFICATION_TYPES, Qualification
from ..strategies import REGISTRY
from .locate import Where, check_filters, check_periods, dupes, where
from .registry import catalogue_rule, rule


def _at(index: int, raw: Any) -> Where:
    return lambda path: where(index, raw, path)


def _offers(program: Any) -> Iterator[tuple[str, Any]]:
    """Each offer with its JSON path."""
    for o_i, offer in enumerate(program.offers):
        yield f"offers[{o_i}]", offer


def _offers_and_periods(program: Any) -> Iterator[tuple[str, Any, set[str]]]:
    """Each offer with its JSON path and the period keys it can name (the program's and its own)."""
    program_periods = {p.key for p in program.time_periods}
    for o_i, offer in enumerate(program.offers):
        yield f"offers[{o_i}]", offer, program_periods | {p.key for p in offer.time_periods}


@rule
def periods(c: IssueCollector, index: int, program: Any, raw: Any) -> None:
    """Time periods: unique keys, none ends before it starts (program and offers)."""
    w = _at(index, raw)
    check_periods(c, lambda i: w(f"time_periods[{i}]"), program.time_periods)
    for op, offer in _offers(program):
        check_periods(c, lambda i: w(f"{op}.time_periods[{i}]"), offer.time_periods)


@rule
def unique_keys(c: IssueCollector, index: int, program: Any, raw: Any) -> None:
    """Qualification keys unique per level, offer keys unique in the program."""
    w = _at(index, raw)
    dupes(c, lambda i: w(f"qualifications[{i}].key"), [q.key for q in program.qualifications], "qualification")
    dupes(c, lambda i: w(f"offers[{i}].key"), [o.key for o in program.offers], "offer")
    for op, offer in _offers(program):
        dupes(c, lambda i: w(f"{op}.qualifications[{i}].key"), [q.key for q in offer.qualifications], "qualification")


@rule
def qualifications(c: IssueCollector, index: int, program: Any, raw: Any) -> None:
    """Each qualification (program and offers) has what its type needs."""
    w = _at(index, raw)
    program_periods = {p.key for p in program.time_periods}
    for q_i, q in enumerate(program.qualifications):
        check_qualification(c, w, f"qualifications[{q_i}]", q, program_periods, "program")
    for op, offer, periods in _offers_and_periods(program):
        for q_i, q in enumerate(offer.qualifications):
            check_qualification(c, w, f"{op}.qualifications[{q_i}]", q, periods, "offer")


@rule
def qualifiers(c: IssueCollector, index: int, program: Any, raw: Any) -> None:
    """Each qualifier parses and names qualifications of its level."""
    w = _at(index, raw)
    check_qualifier(c, w, "qualifier", program.qualifier, {q.key for q in program.qualifications})
    for op, offer in _offers(program):
        check_qualifier(c, w, f"{op}.qualifier", offer.qualifier, {q.key for q in offer.qualifications})


@rule
def calculator_fits_strategy(c: IssueCollector, index: int, program: Any, raw: Any) -> None:
    """An offer's calculator is one its strategy accepts."""
    w = _at(index, raw)
    for op, offer in _offers(program):
        calculators = REGISTRY[offer.strategy_key].calculators
        if offer.calculator_key not in calculators:
            c.add(w(f"{op}.calculator_key"), f"calculator not valid with strategy {offer.strategy_key!r}",
                  offer.calculator_key, "one of " + ", ".join(calculators))


@rule
def strategy_checks(c: IssueCollector, index: int, program: Any, raw: Any) -> None:
    """What is specific to each offer's strategy (its incentive), checked by the strategy."""
    w = _at(index, raw)
    for op, offer, periods in _offers_and_periods(program):
        REGISTRY[offer.strategy_key].check(c, w, op, offer, periods, index, raw)


@catalogue_rule
def unique_program_and_offer_keys(c: IssueCollector, typed: list[tuple[int, Any, Any]]) -> None:
    """Program keys unique in the catalogue, and an offer key used by one program only."""
    seen: dict[str, int] = {}
    offers: dict[str, str] = {}
    for index, program, raw in typed:
        if program.key in seen:
            c.add(where(index, raw, "key"), "duplicate program key", program.key,
                  f"a key not used by programs[{seen[program.key]}]")
        seen.setdefault(program.key, index)
        for o_i, offer in enumerate(program.offers):
            if offer.key in offers and offers[offer.key] != f"{index}":
                c.add(where(index, raw, f"offers[{o_i}].key"), "offer key already used by another program",
                      offer.key, "offer keys unique across the catalogue")
            offers.setdefault(offer.key, f"{index}")


def check_qualification(c: IssueCollector, w: Where, path: str, q: Qualification,
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
    if QUALIFICATION_TYPES[q.type] == "filters":
        check_filters(c, w, f"{path}.filters", q.filters, periods)
    else:
        for part in ("numerator", "denominator"):
            group = getattr(q, part)
            if group is None:
                c.add(w(f"{path}.{part}"), "missing field", None, f"{part} {{filters: [...]}} for {q.type}")
            else:
                check_filters(c, w, f"{path}.{part}.filters", group.filters, periods)
        if q.type == "amount_average_index" and q.denominator is not None and q.denominator.divisor is not None:
            if q.denominator.divisor <= 0:
                c.add(w(f"{path}.denominator.divisor"), "divisor must be positive", q.denominator.divisor,
                      "a number > 0")


def check_qualifier(c: IssueCollector, w: Where, path: str, text: str | None,
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
