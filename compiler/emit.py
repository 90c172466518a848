"""What the strategies (compiler/strategies/) and the qualification kinds (compiler/qualifications/)
emit their rule rows through: the protocol `EmitContext`. The generator (compiler/compile/generate.py
`Generator`) implements it; neither imports the generator."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, Iterable, Mapping, Protocol

from .program.models import Filter, TimePeriod

Row = tuple[Any, ...]


class EmitContext(Protocol):
    """What an `emit` is given: the rule tables being generated and the ids they share."""

    @property
    def numbers(self) -> Mapping[Decimal, str]:
        """`number_text` of each decimal, computed once per value."""

    def period(self, periods: dict[str, TimePeriod], key: str | None) -> tuple[dt.date, dt.date]:
        """The dates of the period `key` of `periods` (open when None)."""

    def filter_id(self, filters: list[Filter] | None, periods: dict[str, TimePeriod]) -> int | None:
        """The id of a filter group (its `filter_keys` rows written once); None: no entries."""

    def add_row(self, table: str, row: Row) -> None:
        """Append a row to the rule table `table` (compiler/rule_tables.py)."""

    def add_rows(self, table: str, rows: Iterable[Row]) -> None:
        """Append rows to the rule table `table`."""
