"""Small SQL text helpers of the run steps (DuckDB, PostgreSQL and Spark alike)."""

from __future__ import annotations


def sql_string(text: str) -> str:
    """`text` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"
