"""One error root with located issues, collected and raised once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, order=True)
class Issue:
    """A problem found in program JSON or input data, with where it is.

    ``where`` is a human locator: ``program 'x' at programs[0].offers[1].operator`` or
    ``transactions.csv row 12 column amount``.
    """

    where: str
    message: str
    value: str | None = None
    expected: str | None = None
    severity: str = "error"

    def render(self) -> str:
        parts = [f"{self.where}: {self.message}"]
        if self.value is not None:
            parts.append(f"got {self.value}")
        if self.expected is not None:
            parts.append(f"expected {self.expected}")
        return "; ".join(parts)


def show(value: Any, limit: int = 80) -> str:
    """A short, quoted rendering of a bad value for messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class IncentivesError(Exception):
    """Root of every error the CLI reports to a person (never a traceback)."""

    def __init__(self, title: str, issues: list[Issue] | None = None) -> None:
        self.title = title
        self.issues: list[Issue] = sorted(set(issues or []))
        super().__init__(self.render())

    def render(self) -> str:
        lines = [self.title]
        errors = [i for i in self.issues if i.severity == "error"]
        if errors:
            lines[0] += f" ({len(errors)} problem{'s' if len(errors) != 1 else ''})"
        lines += [f"  - {i.render()}" for i in errors]
        return "\n".join(lines)


class ProgramError(IncentivesError):
    """Program JSON that cannot be compiled."""


class DataError(IncentivesError):
    """Input data that cannot be evaluated."""


class RunError(IncentivesError):
    """A build step (dbt, loading) failed."""


@dataclass
class IssueCollector:
    """Collects issues from validation rules before raising once."""

    issues: list[Issue] = field(default_factory=list)

    def add(self, where: str, message: str, value: Any = None, expected: str | None = None,
            severity: str = "error") -> None:
        self.issues.append(Issue(where, message, None if value is None else show(value), expected, severity))

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]
