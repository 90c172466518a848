"""Located issues of programs JSON: where a problem is (program key and JSON path), pydantic's
errors as issues, and the small checks every level shares (duplicate keys, periods, filters)."""

from __future__ import annotations

from typing import Any, Callable, Iterable

from pydantic import ValidationError

from ..errors import IssueCollector, ProgramPlace, join_path
from ..program.models import TRANSACTION_TYPES, Filter, TimePeriod

Where = Callable[[str], ProgramPlace]  # a JSON path inside one program -> its place (see `where`)


def path_text(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def where(index: int, raw: Any, path: str = "") -> ProgramPlace:
    """The place at `path` in the program at `index` (`raw`: its JSON, for its key)."""
    key = raw.get("key") if isinstance(raw, dict) else None
    return ProgramPlace(index, key if isinstance(key, str) else None, path)


def pydantic_issues(c: IssueCollector, exc: ValidationError, index: int, raw: Any, prefix: str = "") -> None:
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"] if not (isinstance(p, str) and ("[" in p or p.startswith("function-")))]
        path = join_path(prefix, path_text(loc))
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
        c.add(where(index, raw, path), message, value, expected)


def dupes(c: IssueCollector, where: Callable[[int], ProgramPlace], keys: list[str | None], what: str) -> None:
    seen: set[str] = set()
    for i, key in enumerate(keys):
        if key is None:
            continue
        if key in seen:
            c.add(where(i), f"duplicate {what} key", key, f"each {what} key once")
        seen.add(key)


def check_periods(c: IssueCollector, where: Callable[[int], ProgramPlace], periods: list[TimePeriod]) -> None:
    dupes(c, lambda i: where(i).inside("key"), [p.key for p in periods], "time period")
    for i, p in enumerate(periods):
        if p.end_date < p.start_date:
            c.add(where(i).inside("end_date"), "period ends before it starts",
                  f"{p.start_date} .. {p.end_date}", "end_date on or after start_date")


def check_filters(c: IssueCollector, w: Where, path: str, filters: list[Filter] | None,
                   periods: set[str]) -> None:
    for f_i, f in enumerate(filters or []):
        check_period_and_type(c, w, f"{path}[{f_i}]", f.period_key, f.transaction_type, periods)


def check_period_and_type(c: IssueCollector, w: Where, path: str, period_key: str | None,
                           transaction_type: str | None, periods: set[str]) -> None:
    if period_key is not None and period_key not in periods:
        c.add(w(f"{path}.period_key"), "unknown period key", period_key,
              "one of " + (", ".join(sorted(periods)) or "(no periods defined)"))
    if transaction_type is not None and transaction_type not in TRANSACTION_TYPES:
        c.add(w(f"{path}.transaction_type"), "unknown transaction type", transaction_type,
              "one of " + ", ".join(TRANSACTION_TYPES))
