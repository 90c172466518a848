"""Validation of the raw programs: each program's shape (pydantic, ProgramShape), then every rule
of `RULES` (rules.py) on every program that has its shape, then the rules across programs
(`CATALOGUE_RULES`); every issue collected, nothing raised here."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from ..errors import IssueCollector
from ..program.catalogue import Program, ProgramShape, typed_program
from .context import CatalogueContext, ProgramContext, Scope, where
from .locate import pydantic_issues
from .rules import CATALOGUE_RULES, RULES


def validate(raw_programs: list[Any], skip: frozenset[int] = frozenset()) -> tuple[list[tuple[int, Program, Any]], IssueCollector]:
    """Typed programs (with their index and raw JSON) and every issue found; the programs at the
    indexes in `skip` are left out (they keep their index in the messages of the others). The
    programs are typed (their offers by strategy) only when no issue is an error."""
    c = IssueCollector()
    shaped: list[tuple[int, ProgramShape, Any]] = []
    for index, raw in enumerate(raw_programs):
        if index in skip:
            continue
        if not isinstance(raw, dict):
            c.add(where(index, raw), "a program must be an object", raw, "an object")
            continue
        try:
            shaped.append((index, ProgramShape.model_validate(raw), raw))
        except ValidationError as exc:
            pydantic_issues(Scope(c, where(index, raw), frozenset()), exc)
    contexts = [ProgramContext.of(c, index, program, raw) for index, program, raw in shaped]
    for ctx in contexts:
        for check in RULES:
            check(ctx)
    catalogue = CatalogueContext(c, contexts)
    for check_all in CATALOGUE_RULES:
        check_all(catalogue)
    del contexts, catalogue
    if c.errors:
        return [], c
    typed: list[tuple[int, Program, Any]] = []
    shaped.reverse()
    while shaped:  # each shape let go once typed (the typed program shares its parts but the offers)
        index, program, raw = shaped.pop()
        typed.append((index, typed_program(program), raw))
    return typed, c
