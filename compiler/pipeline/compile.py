"""Compile GET /programs JSON into relational rule tables.

Stages: parse (JSON text -> Python, here), validate (compiler/validation/: the programs' shape,
then every registered rule, every problem collected), generate (compiler/pipeline/generate.py:
rows of the fixed set of rule tables, each offer's by its strategy), write (here: the rule tables
as dbt seeds). Nothing here emits per-program SQL: the dbt project evaluates every program from
these tables in one pass.
"""

from __future__ import annotations

import csv
import gc
import hashlib
import io
import json
import os
import re
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from ..errors import IncentivesError, Issue, IssueCollector, ProgramError, RunError
from ..rule_tables import CATALOGUE, CATALOGUE_COLUMNS, CATALOGUE_HASH, TABLES, seed_name, seeds_yaml
from ..validation.check import validate
from .generate import RuleSet, generate
from .progress import PhaseTimer, Say

SEEDS_YAML = "_incentive_rules.yml"


# ----------------------------------------------------------------------------- parse

def parse_json(text: str, source: str = "programs") -> list[Any]:
    """JSON text -> the list of raw program objects. Numbers are read as exact decimals."""
    try:
        data = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as exc:
        c = IssueCollector()
        c.add(f"{source} line {exc.lineno} column {exc.colno}", f"not valid JSON: {exc.msg}",
              expected="the GET /programs JSON")
        raise ProgramError("The programs file is not valid JSON", c.issues) from None
    if isinstance(data, dict) and "programs" in data:
        data = data["programs"]
    if not isinstance(data, list):
        c = IssueCollector()
        c.add(f"{source} (top level)", "unexpected shape", type(data).__name__,
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


@dataclass(frozen=True)
class RejectedProgram:
    """One problem of a program left out by `compile_text(skip_invalid=True)`: a row of the table
    rejected_programs (a program with several problems has several)."""

    program_index: int
    program_key: str | None
    json_path: str  # e.g. programs[1].qualifier
    issue: Issue

    def row(self) -> tuple[Any, ...]:
        """(program_index, program_key, json_path, problem, bad_value, expected, message)"""
        i = self.issue
        return (self.program_index, self.program_key, self.json_path, i.message, i.value, i.expected, i.render())


_PROGRAM_AT = re.compile(r"^program .*? at (programs\[(\d+)\].*)$", re.DOTALL)  # see validation/locate.py `where`


def _rejections(raw: list[Any], errors: list[Issue]) -> list[RejectedProgram] | None:
    """The problems of `errors` as rejections of the programs they are located in; None when one
    of them is not located in a program (the file itself is wrong)."""
    out = []
    for issue in errors:
        at = _PROGRAM_AT.match(issue.where)
        if at is None:
            return None
        index = int(at.group(2))
        key = raw[index].get("key") if isinstance(raw[index], dict) else None
        out.append(RejectedProgram(index, key if isinstance(key, str) else None, at.group(1), issue))
    return out


def _compile_text(text: str, source: str, skip_invalid: bool) -> tuple[RuleSet, IssueCollector]:
    raw = parse_json(text, source)
    typed, issues = validate(raw)
    rejected: list[RejectedProgram] = []
    while issues.errors and skip_invalid:
        found = _rejections(raw, issues.errors)
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


def _csv_value(v: Any) -> Any:
    return "" if v is None else (str(v).lower() if isinstance(v, bool) else v)


def _csv_lines(rows: list[tuple[Any, ...]]) -> str | None:
    """The rows as the csv module writes them (NULL empty, booleans true / false), joined
    directly when no field needs quoting: None when one might (or a value is of another type)."""
    if not rows:
        return ""
    widths = set(map(len, rows))
    width = widths.pop()
    if widths or width < 2:
        return None
    try:  # only text
        text = "\n".join(map(",".join, rows)) + "\n"
    except TypeError:
        columns: list[Any] = list(zip(*rows))
        for i, values in enumerate(columns):
            kinds = set(map(type, values))
            if kinds == {str}:
                continue
            if kinds == {int}:
                columns[i] = list(map(str, values))
            elif kinds == {str, type(None)}:
                columns[i] = ["" if v is None else v for v in values]
            elif kinds <= {str, int, bool, type(None)}:
                columns[i] = list(map(str, map(_csv_value, values)))
            else:
                return None
        text = "\n".join(map(",".join, zip(*columns))) + "\n"
    # a field holding a delimiter, a quote or a line break would need quoting: leave it to csv
    if '"' in text or "\r" in text or text.count("\n") != len(rows) or text.count(",") != len(rows) * (width - 1):
        return None
    return text


def _table_text(name: str, rows: list[tuple[Any, ...]]) -> tuple[str, str | None]:
    """(the header line, the rows as CSV text) of a rule table without its catalogue hash; the rows
    are None when a field needs quoting (then written by the csv module)."""
    return ",".join(TABLES[name]), _csv_lines(rows)


def _write_atomically(path: Path, *parts: str | bytes) -> None:
    """Write the parts (text as UTF-8) into `path`, replaced at once when written."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        for part in parts:
            fh.write(part.encode() if isinstance(part, str) else part)
    os.replace(tmp, path)


def write_rules(rules: RuleSet, out_dir: os.PathLike[str] | str, source: str = "programs",
                status: str = "compiled") -> list[str]:
    """Write each rule table as a dbt seed (deterministic CSV), the catalogue seed and the seeds'
    properties file (column types, docs, data tests) into `out_dir`.

    Every table gets the column catalogue_hash: 16 hex digits of the sha256 of all the compiled
    tables, so a data test finds a table left from another compile."""
    path = Path(out_dir)
    path.mkdir(parents=True, exist_ok=True)
    written = []
    with gc_paused():
        # the rows as UTF-8 bytes: hashed, then written with the hash appended, each table's text
        # made once (a table of 125 MB is not copied again for the hash, the file and its encoding)
        texts: dict[str, tuple[str, bytes | None]] = {}
        digest = hashlib.sha256()
        for name in TABLES:
            header, lines = _table_text(name, rules.tables[name])
            digest.update(f"{name}\n{header}\n".encode())
            if lines is None:
                buf = io.StringIO()
                csv.writer(buf, lineterminator="\n").writerows([_csv_value(v) for v in row] for row in rules.tables[name])
                digest.update(buf.getvalue().encode())
                texts[name] = (header, None)
            else:
                data = lines.encode()
                del lines
                digest.update(data)
                texts[name] = (header, data)
        catalogue_hash = digest.hexdigest()[:16]
        for name in TABLES:
            header, data = texts.pop(name)
            if data is None:  # a field needs quoting: the csv module writes every row with the hash
                buf = io.StringIO()
                writer = csv.writer(buf, lineterminator="\n")
                writer.writerows([*map(_csv_value, row), catalogue_hash] for row in rules.tables[name])
                data = buf.getvalue().encode()
            else:  # no field holds a line break (see _csv_lines): the hash ends every line
                data = data.replace(b"\n", f",{catalogue_hash}\n".encode())
            target = path / f"{seed_name(name)}.csv"
            _write_atomically(target, f"{header},{CATALOGUE_HASH}\n".encode(), data)
            del data
            written.append(str(target))
        catalogue = io.StringIO()
        writer = csv.writer(catalogue, lineterminator="\n")
        writer.writerow([c.name for c in CATALOGUE_COLUMNS])
        writer.writerow([catalogue_hash, status, rules.programs, rules.offers, Path(source).name])
        _write_atomically(path / f"{seed_name(CATALOGUE)}.csv", catalogue.getvalue())
        _write_atomically(path / SEEDS_YAML, seeds_yaml())
    return written


def write_failed_compile(out_dir: os.PathLike[str] | str, source: str) -> None:
    """After a compile that failed: empty rule tables and a catalogue saying so, so that no rule
    table looks valid and `dbt build` fails on the test last_compile_succeeded."""
    write_rules(RuleSet(), out_dir, source, status="failed")


# ----------------------------------------------------------------------------- a run's compile step

T = TypeVar("T")


def _compile_and_import_dbt(programs: Path, rules_dir: Path,
                            skip_invalid: bool) -> tuple[str, float, list[RejectedProgram]]:
    """compile_programs, then import dbt: the compile's summary line, the seconds it took and the
    programs left out."""
    started = time.perf_counter()
    line, rejected = compile_programs(programs, rules_dir, skip_invalid)
    seconds = time.perf_counter() - started
    import dbt.cli.main  # noqa: F401  (what run_dbt imports; the adapters are imported by dbt)

    return line, seconds, rejected


def compile_alongside(programs: Path, rules_dir: Path, say: Say, phase: PhaseTimer, load_phase: str,
                      load: Callable[[], T], skip_invalid_programs: bool = False) -> tuple[T, list[RejectedProgram]]:
    """Compile the programs into `rules_dir` in a thread while `load()` runs, and return what
    `load` returned and the programs left out (`skip_invalid_programs`, see compile_text).

    Loading and validating the input files is DuckDB's work, done outside Python's interpreter
    lock, so compiling (Python) and then importing dbt (about a second of Python that would
    otherwise start the build) take no time of their own when the load is longer. When both
    fail, one error lists the problems of the programs and of the data. Phases: `compile` (the
    thread's compiling), `load_phase`, and `wait` for the thread once `load` is done."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="incentives-compile") as pool:
        compiled = pool.submit(_compile_and_import_dbt, programs, rules_dir, skip_invalid_programs)
        try:
            loaded = load()
        except IncentivesError as data_error:
            program_error = compiled.exception()
            if isinstance(program_error, IncentivesError):
                raise IncentivesError(f"{program_error.render()}\n{data_error.title}", data_error.issues) from None
            raise
        phase(load_phase)
        line, seconds, rejected = compiled.result()
    phase("wait")
    phase.alongside("compile", seconds)
    say(line)
    return loaded, rejected


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

__all__ = ["TABLES", "RuleSet", "compile_text", "write_rules", "write_failed_compile", "parse_json", "validate", "generate"]
