"""Compile GET /programs JSON into relational rule tables: the stages put together.

Stages: parse (parse.py: JSON text -> Python), validate (compiler/validation/: the programs'
shape, then every registered rule, every problem collected), generate (generate.py: rows of the
fixed set of rule tables, each offer's by its strategy), write (write.py: the rule tables as dbt
seeds). Nothing here emits per-program SQL: the dbt project evaluates every program from these
tables in one pass.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import Issue, IssueCollector, ProgramError, ProgramPlace, RunError
from ..validation.check import validate
from .generate import RuleSet, generate
from .parse import gc_paused, parse_json
from .write import write_rules


@dataclass(frozen=True)
class RejectedProgram:
    """One problem of a program left out by `compile_text(skip_invalid=True)`: a row of the table
    rejected_programs (a program with several problems has several)."""

    issue: Issue  # located in the program (its `at` is a ProgramPlace)

    @property
    def at(self) -> ProgramPlace:
        assert isinstance(self.issue.at, ProgramPlace)
        return self.issue.at

    @property
    def program_index(self) -> int:
        return self.at.index

    def row(self) -> tuple[Any, ...]:
        """(program_index, program_key, json_path, problem, bad_value, expected, message)"""
        i = self.issue
        return (self.at.index, self.at.key, self.at.json_path, i.message, i.value, i.expected, i.render())


def _rejections(errors: list[Issue]) -> list[RejectedProgram] | None:
    """The problems of `errors` as rejections of the programs they are located in; None when one
    of them is not located in a program (the file itself is wrong)."""
    out = []
    for issue in errors:
        if not isinstance(issue.at, ProgramPlace):
            return None
        out.append(RejectedProgram(issue))
    return out


def _compile_text(text: str, source: str, skip_invalid: bool) -> tuple[RuleSet, IssueCollector]:
    raw = parse_json(text, source)
    typed, issues = validate(raw)
    rejected: list[RejectedProgram] = []
    while issues.errors and skip_invalid:
        found = _rejections(issues.errors)
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
