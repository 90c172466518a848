"""Qualifier expressions: parse ``a AND (b OR c)`` and normalize to OR-of-ANDs rows.

Grammar (keywords case-insensitive, AND binds tighter than OR)::

    expr   := term ("OR" term)*
    term   := factor ("AND" factor)*
    factor := KEY | "(" expr ")"

KEY is any run of characters other than white space and parentheses that is not a keyword,
so qualification keys may hold dots and dashes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Union

MAX_TERMS = 1024

_TOKEN = re.compile(r"\s*(?:(\()|(\))|([^\s()]+))")


class QualifierSyntaxError(ValueError):
    """A qualifier that does not parse; ``position`` is the 0-based character offset."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(message)
        self.position = position


@dataclass(frozen=True)
class Key:
    name: str
    position: int


@dataclass(frozen=True)
class And:
    items: tuple["Node", ...]


@dataclass(frozen=True)
class Or:
    items: tuple["Node", ...]


Node = Union[Key, And, Or]


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out: list[tuple[str, str, int]] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:  # only trailing white space is left
            break
        if match.group(1):
            out.append(("(", "(", match.start(1)))
        elif match.group(2):
            out.append((")", ")", match.start(2)))
        elif match.group(3):
            word = match.group(3)
            upper = word.upper()
            kind = upper if upper in ("AND", "OR") else ("BAD" if upper == "NOT" else "KEY")
            out.append((kind, word, match.start(3)))
        pos = match.end()
    return out


def parse(text: str | None) -> Node | None:
    """Parse a qualifier; ``None`` for a null, absent or blank one (always qualified)."""
    if text is None or not text.strip():
        return None
    tokens = _tokens(text)
    index = 0

    def peek() -> tuple[str, str, int] | None:
        return tokens[index] if index < len(tokens) else None

    def fail(expected: str) -> QualifierSyntaxError:
        token = peek()
        if token is None:
            return QualifierSyntaxError(f"expected {expected} at the end of the expression", len(text))
        return QualifierSyntaxError(f"expected {expected}, found {token[1]!r}", token[2])

    def expr() -> Node:
        nonlocal index
        items = [term()]
        while (token := peek()) is not None and token[0] == "OR":
            index += 1
            items.append(term())
        return items[0] if len(items) == 1 else Or(tuple(items))

    def term() -> Node:
        nonlocal index
        items = [factor()]
        while (token := peek()) is not None and token[0] == "AND":
            index += 1
            items.append(factor())
        return items[0] if len(items) == 1 else And(tuple(items))

    def factor() -> Node:
        nonlocal index
        token = peek()
        if token is None or token[0] not in ("KEY", "("):
            if token is not None and token[0] == "BAD":
                raise QualifierSyntaxError("NOT is not supported (only AND, OR and parentheses)", token[2])
            raise fail("a qualification key or '('")
        index += 1
        if token[0] == "KEY":
            return Key(token[1], token[2])
        node = expr()
        closing = peek()
        if closing is None or closing[0] != ")":
            raise fail("')'")
        index += 1
        return node

    node = expr()
    if peek() is not None:
        raise fail("AND, OR or the end of the expression")
    return node


def keys(node: Node | None) -> list[Key]:
    """Every key occurrence, in order of appearance."""
    if node is None:
        return []
    if isinstance(node, Key):
        return [node]
    return [k for item in node.items for k in keys(item)]


def to_dnf(node: Node | None) -> list[tuple[str, ...]]:
    """OR of AND terms: each term is a sorted tuple of distinct keys; absorbed terms are removed.

    ``None`` (no qualifier) gives no terms, which the SQL reads as qualified.
    """
    if node is None:
        return []

    def walk(n: Node) -> set[frozenset[str]]:
        if isinstance(n, Key):
            return {frozenset([n.name])}
        if isinstance(n, Or):
            out: set[frozenset[str]] = set()
            for item in n.items:
                out |= walk(item)
            return out
        acc: set[frozenset[str]] = {frozenset()}
        for item in n.items:
            acc = {a | b for a in acc for b in walk(item)}
            if len(acc) > MAX_TERMS:
                raise QualifierSyntaxError(
                    f"expression expands to more than {MAX_TERMS} AND-terms", 0
                )
        return acc

    terms = walk(node)
    minimal = [t for t in terms if not any(o < t for o in terms)]
    return sorted(tuple(sorted(t)) for t in minimal)
