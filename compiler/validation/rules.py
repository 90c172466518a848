"""The validation rules of programs, listed at the end (`RULES`, `CATALOGUE_RULES`): each takes one
context (context.py) and adds the problems it finds. What is specific to a qualification kind or
a strategy is checked by its module (compiler/qualifications/, compiler/strategies/), called by
the rules `qualifications` and `strategy_checks`."""

from __future__ import annotations

from ..program import qualifier as qx
from ..qualifications import REGISTRY as QUALIFICATION_KINDS
from ..strategies import REGISTRY
from .context import CatalogueContext, CatalogueRule, ProgramContext, Rule, Scope
from .locate import check_periods, dupes


def periods(ctx: ProgramContext) -> None:
    """Time periods: unique keys, none ends before it starts (program and offers)."""
    check_periods(ctx, ctx.program.time_periods)
    for o in ctx.offers():
        check_periods(o, o.offer.time_periods)


def unique_keys(ctx: ProgramContext) -> None:
    """Qualification keys unique per level, offer keys unique in the program."""
    program = ctx.program
    dupes(ctx, lambda i: f"qualifications[{i}].key", [q.key for q in program.qualifications], "qualification")
    dupes(ctx, lambda i: f"offers[{i}].key", [o.key for o in program.offers], "offer")
    for o in ctx.offers():
        dupes(o, lambda i: f"qualifications[{i}].key", [q.key for q in o.offer.qualifications], "qualification")


def qualifications(ctx: ProgramContext) -> None:
    """Each qualification (program and offers) has what its type needs, checked by its kind."""
    for q in ctx.qualifications(ctx.program.qualifications):
        QUALIFICATION_KINDS[q.qualification.type].check(q)
    for o in ctx.offers():
        for q in o.qualifications(o.offer.qualifications):
            QUALIFICATION_KINDS[q.qualification.type].check(q)


def qualifiers(ctx: ProgramContext) -> None:
    """Each qualifier parses and names qualifications of its level."""
    check_qualifier(ctx, ctx.program.qualifier, {q.key for q in ctx.program.qualifications})
    for o in ctx.offers():
        check_qualifier(o, o.offer.qualifier, {q.key for q in o.offer.qualifications})


def calculator_fits_strategy(ctx: ProgramContext) -> None:
    """An offer's calculator is one its strategy accepts."""
    for o in ctx.offers():
        calculators = REGISTRY[o.offer.strategy_key].calculators
        if o.offer.calculator_key not in calculators:
            o.add("calculator_key", f"calculator not valid with strategy {o.offer.strategy_key!r}",
                  o.offer.calculator_key, "one of " + ", ".join(calculators))


def strategy_checks(ctx: ProgramContext) -> None:
    """What is specific to each offer's strategy (its incentive), checked by the strategy."""
    for o in ctx.offers():
        REGISTRY[o.offer.strategy_key].check(o)


def unique_program_and_offer_keys(ctx: CatalogueContext) -> None:
    """Program keys unique in the catalogue, and an offer key used by one program only."""
    seen: dict[str, int] = {}
    offers: dict[str, int] = {}
    for p in ctx.programs:
        program, index = p.program, p.place.index
        if program.key in seen:
            p.add("key", "duplicate program key", program.key, f"a key not used by programs[{seen[program.key]}]")
        seen.setdefault(program.key, index)
        for o_i, offer in enumerate(program.offers):
            if offer.key in offers and offers[offer.key] != index:
                p.add(f"offers[{o_i}].key", "offer key already used by another program",
                      offer.key, "offer keys unique across the catalogue")
            offers.setdefault(offer.key, index)


def check_qualifier(scope: Scope, text: str | None, known: set[str]) -> None:
    """The `qualifier` of the scope (a program or an offer); `known`: its qualification keys."""
    try:
        node = qx.parse(text)
        qx.to_dnf(node)
    except qx.QualifierSyntaxError as exc:
        scope.add("qualifier", f"qualifier syntax error at position {exc.position + 1}: {exc}", text,
                  "qualification keys joined by AND / OR with balanced parentheses")
        return
    for key in qx.keys(node):
        if key.name not in known:
            scope.add("qualifier", f"qualifier names unknown qualification {key.name!r} at position {key.position + 1}",
                      text, "keys of qualifications defined at the same level: "
                      + (", ".join(sorted(known)) or "(none)"))


# The rules, in the order they run (check.py): each on every program that has its shape
RULES: tuple[Rule, ...] = (periods, unique_keys, qualifications, qualifiers, calculator_fits_strategy, strategy_checks)
# then the rules across programs, on those programs together
CATALOGUE_RULES: tuple[CatalogueRule, ...] = (unique_program_and_offer_keys,)
