"""The registry of validation rules. A rule adds located issues to the collector and returns
nothing; every registered rule runs on every program (check.py), so each finds its problems in
all of them at once and the compile raises one error listing them all."""

from __future__ import annotations

from typing import Any, Callable

from ..errors import IssueCollector

# (collector, program index, program (a ProgramShape), its raw JSON)
Rule = Callable[[IssueCollector, int, Any, Any], None]
# (collector, every (index, ProgramShape, raw JSON) that has its shape): checks across programs
CatalogueRule = Callable[[IssueCollector, list[tuple[int, Any, Any]]], None]

RULES: list[Rule] = []
CATALOGUE_RULES: list[CatalogueRule] = []


def rule(fn: Rule) -> Rule:
    """Register a rule checking one program."""
    RULES.append(fn)
    return fn


def catalogue_rule(fn: CatalogueRule) -> CatalogueRule:
    """Register a rule checking the programs together."""
    CATALOGUE_RULES.append(fn)
    return fn
