"""Compile, stage 1: parse the GET /programs JSON text into Python objects (numbers as exact
decimals). The other stages: validate (compiler/validation/), generate (generate.py), write
(write.py); programs.py puts them together."""

from __future__ import annotations

import gc
import json
from contextlib import contextmanager
from decimal import Decimal
from typing import Any, Iterator

from ..errors import FilePlace, IssueCollector, ProgramError


def parse_json(text: str, source: str = "programs") -> list[Any]:
    """JSON text -> the list of raw program objects. Numbers are read as exact decimals."""
    try:
        data = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as exc:
        c = IssueCollector()
        c.add(FilePlace(source, line=exc.lineno, column=exc.colno), f"not valid JSON: {exc.msg}",
              expected="the GET /programs JSON")
        raise ProgramError("The programs file is not valid JSON", c.issues) from None
    if isinstance(data, dict) and "programs" in data:
        data = data["programs"]
    if not isinstance(data, list):
        c = IssueCollector()
        c.add(FilePlace(source, part="top level"), "unexpected shape", type(data).__name__,
              'an object {"programs": [...]} or a list of programs')
        raise ProgramError("The programs file has the wrong shape", c.issues)
    return data


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: compiling allocates millions of small, acyclic objects
    (JSON values, models, rows), and every collection would walk all of them again. Reference
    counting still frees everything; the collector resumes (if it was on) afterwards. Let the
    large temporaries go before the block ends: the first collection after it walks whatever
    the block allocated and is still alive."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
