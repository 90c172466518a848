"""One error root with located issues, collected and raised once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Union


def join_path(base: str, path: str) -> str:
    """A JSON path inside `base`: `offers[0]` + `key` is `offers[0].key`, + `[1]` is `offers[0][1]`."""
    if not path:
        return base
    return base + path if not base or path.startswith("[") else f"{base}.{path}"


@dataclass(frozen=True)
class ProgramPlace:
    """Where a problem is in the programs JSON: the program at `index` (its `key`, when it has one
    that is text) and the JSON path inside it (`offers[1].operator`; empty: the program)."""

    index: int
    key: str | None = None
    path: str = ""

    @property
    def json_path(self) -> str:
        """The path from the catalogue's list: `programs[0].offers[1].operator`."""
        return join_path(f"programs[{self.index}]", self.path)

    def inside(self, path: str) -> "ProgramPlace":
        """The place at `path` inside this one."""
        return ProgramPlace(self.index, self.key, join_path(self.path, path))

    def __str__(self) -> str:
        head = f"program {self.key!r}" if self.key is not None else f"program #{self.index}"
        return f"{head} at {self.json_path}"


@dataclass(frozen=True)
class FilePlace:
    """Where a problem is in a file (the data folder, an input file, the programs file): the file
    itself, or a data row (counted from 1; `line`: its line in a CSV file) or a line of text, and
    a column (a data file's column name, a character position in a line); `part`: a part of the
    file named in words (`top level`)."""

    file: str
    row: int | None = None
    line: int | None = None
    column: str | int | None = None
    part: str | None = None

    def __str__(self) -> str:
        text = self.file
        if self.row is not None:
            text += f" row {self.row}" + (f" (line {self.line})" if self.line is not None else "")
        elif self.line is not None:
            text += f" line {self.line}"
        if self.column is not None:
            text += f" column {self.column}"
        return text + (f" ({self.part})" if self.part else "")


Place = Union[ProgramPlace, FilePlace]


@dataclass(frozen=True)
class Issue:
    """A problem found in program JSON or input data, with where it is (`at`, rendered as `where`:
    ``program 'x' at programs[0].offers[1].operator`` or ``transactions.csv row 12 (line 13)
    column amount``). Issues sort by their rendered text."""

    at: Place
    message: str
    value: str | None = None
    expected: str | None = None
    severity: str = "error"

    @property
    def where(self) -> str:
        return str(self.at)

    def _key(self) -> tuple[Any, ...]:
        return (self.where, self.message, self.value, self.expected, self.severity)

    def __lt__(self, other: "Issue") -> bool:
        return self._key() < other._key()

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

    def add(self, at: Place, message: str, value: Any = None, expected: str | None = None,
            severity: str = "error") -> None:
        self.issues.append(Issue(at, message, None if value is None else show(value), expected, severity))

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]
