"""Located problems of programs JSON: pydantic's errors as issues, and the small checks every level
shares (duplicate keys, periods, filters), each adding its problems in a `Scope` (context.py)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from pydantic import ValidationError

from ..program.models import TRANSACTION_TYPES, Filter, TimePeriod
from .context import Scope


def path_text(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def pydantic_issues(scope: Scope, exc: ValidationError) -> None:
    """Each error of `exc` (a model validated from the JSON at `scope`) as a located issue."""
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if not (isinstance(p, str) and ("[" in p or p.startswith("function-")))]
        expected = None
        ctx = err.get("ctx") or {}
        if err["type"] == "literal_error":
            expected = "one of " + str(ctx.get("expected", ""))
        elif err["type"] == "missing":
            expected = "a value (the field is required)"
        elif err["type"] == "value_error":
            expected = str(ctx.get("error", err["msg"]))
        else:
            expected = err["msg"].lower()
        message = "missing field" if err["type"] == "missing" else "invalid value"
        value = None if err["type"] == "missing" else err.get("input")
        scope.add(path_text(loc), message, value, expected)


def dupes(scope: Scope, path: Callable[[int], str], keys: list[str | None], what: str) -> None:
    """A problem at `path(i)` for each key of `keys` seen before it (None: no key)."""
    seen: set[str] = set()
    for i, key in enumerate(keys):
        if key is None:
            continue
        if key in seen:
            scope.add(path(i), f"duplicate {what} key", key, f"each {what} key once")
        seen.add(key)


def check_periods(scope: Scope, periods: list[TimePeriod]) -> None:
    """The `time_periods` of the scope (a program or an offer)."""
    dupes(scope, lambda i: f"time_periods[{i}].key", [p.key for p in periods], "time period")
    for i, p in enumerate(periods):
        if p.end_date < p.start_date:
            scope.add(f"time_periods[{i}].end_date", "period ends before it starts",
                      f"{p.start_date} .. {p.end_date}", "end_date on or after start_date")


def check_filters(scope: Scope, path: str, filters: list[Filter] | None) -> None:
    """The filters at `path` in the scope: their periods known, their transaction types too."""
    for f_i, f in enumerate(filters or []):
        check_period_and_type(scope.inside(f"{path}[{f_i}]"), f.period_key, f.transaction_type)


def check_period_and_type(scope: Scope, period_key: str | None, transaction_type: str | None) -> None:
    """The `period_key` and `transaction_type` of what is at the scope."""
    if period_key is not None and period_key not in scope.periods:
        scope.add("period_key", "unknown period key", period_key,
                  "one of " + (", ".join(sorted(scope.periods)) or "(no periods defined)"))
    if transaction_type is not None and transaction_type not in TRANSACTION_TYPES:
        scope.add("transaction_type", "unknown transaction type", transaction_type,
                  "one of " + ", ".join(TRANSACTION_TYPES))
