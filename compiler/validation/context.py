"""What a validation rule is given: one context object, which locates the problems it adds.

A `Scope` is a place in one program (the program's index and key, a JSON path inside it) with the
collector its problems go to and the period keys its filters can name. A rule checking one program
is given a `ProgramContext`; a strategy's `check`, an `OfferContext`; a qualification kind's
`check`, a `QualificationContext`; a rule across programs, a `CatalogueContext`. The rules are
listed in rules.py (`RULES`, `CATALOGUE_RULES`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ..errors import IssueCollector, ProgramPlace


def where(index: int, raw: Any, path: str = "") -> ProgramPlace:
    """The place at `path` in the program at `index` (`raw`: its JSON, for its key)."""
    key = raw.get("key") if isinstance(raw, dict) else None
    return ProgramPlace(index, key if isinstance(key, str) else None, path)


@dataclass(frozen=True)
class Scope:
    """A place in one program where problems are looked for (paths are relative to it)."""

    issues: IssueCollector
    place: ProgramPlace
    periods: frozenset[str]  # the period keys a filter here can name

    def at(self, path: str = "") -> ProgramPlace:
        """The place at `path` inside this scope."""
        return self.place.inside(path)

    def add(self, path: str, message: str, value: Any = None, expected: str | None = None) -> None:
        """A problem at `path` inside this scope."""
        self.issues.add(self.at(path), message, value, expected)

    def inside(self, path: str) -> Scope:
        """The scope at `path` inside this one (the same periods)."""
        return Scope(self.issues, self.at(path), self.periods)

    def qualifications(self, qualifications: list[Any]) -> Iterator[QualificationContext]:
        """Each qualification of this scope (a program or an offer) in its context."""
        for q_i, q in enumerate(qualifications):
            yield QualificationContext(self.issues, self.at(f"qualifications[{q_i}]"), self.periods, q)


@dataclass(frozen=True)
class QualificationContext(Scope):
    """One qualification (a `Qualification`), at its path, with the periods of its level."""

    qualification: Any


@dataclass(frozen=True)
class OfferContext(Scope):
    """One offer (an `OfferShape`: its `incentive` still the JSON's object), at `offers[i]`, with the
    periods it can name (its program's and its own)."""

    offer: Any


@dataclass(frozen=True)
class ProgramContext(Scope):
    """One program that has its shape (a `ProgramShape`), with its own periods."""

    program: Any

    @classmethod
    def of(cls, issues: IssueCollector, index: int, program: Any, raw: Any) -> ProgramContext:
        return cls(issues, where(index, raw), frozenset(p.key for p in program.time_periods), program)

    def offers(self) -> Iterator[OfferContext]:
        """Each offer of the program in its context."""
        for o_i, offer in enumerate(self.program.offers):
            yield OfferContext(self.issues, self.at(f"offers[{o_i}]"),
                               self.periods | {p.key for p in offer.time_periods}, offer)


@dataclass(frozen=True)
class CatalogueContext:
    """The programs that have their shape, together (for the checks across programs)."""

    issues: IssueCollector
    programs: list[ProgramContext]


Rule = Callable[[ProgramContext], None]  # adds the problems of one program
CatalogueRule = Callable[[CatalogueContext], None]  # adds the problems across programs
