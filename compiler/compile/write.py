"""Compile, last stage: write the rule tables as dbt seeds (deterministic CSV with the catalogue
hash), the catalogue seed and the seeds' properties file."""

from __future__ import annotations

import csv
import hashlib
import io
import os
import threading
from pathlib import Path
from typing import Any

from ..rule_tables import CATALOGUE, CATALOGUE_COLUMNS, CATALOGUE_HASH, TABLES, seed_name, seeds_yaml
from .generate import RuleSet
from .parse import gc_paused

SEEDS_YAML = "_incentive_rules.yml"


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


def write_atomically(path: Path, *parts: str | bytes) -> None:
    """Write the parts (text as UTF-8) into `path`, replaced at once when written (the partial
    file is this process's and thread's own, so concurrent writers of one file each replace it
    whole, and a reader sees the old file or the new one)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "wb") as fh:
        for part in parts:
            fh.write(part.encode() if isinstance(part, str) else part)
    os.replace(tmp, path)


def keep_most_recent(folder: Path, pattern: str, count: int) -> None:
    """Delete all but the `count` most recently written files of `folder` that match `pattern` (a
    file another process deleted meanwhile counts as the oldest)."""
    def written(path: Path) -> int:
        try:
            return path.stat().st_mtime_ns
        except FileNotFoundError:
            return 0

    for path in sorted(folder.glob(pattern), key=written, reverse=True)[count:]:
        path.unlink(missing_ok=True)


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
            write_atomically(target, f"{header},{CATALOGUE_HASH}\n".encode(), data)
            del data
            written.append(str(target))
        catalogue = io.StringIO()
        writer = csv.writer(catalogue, lineterminator="\n")
        writer.writerow([c.name for c in CATALOGUE_COLUMNS])
        writer.writerow([catalogue_hash, status, rules.programs, rules.offers, Path(source).name])
        write_atomically(path / f"{seed_name(CATALOGUE)}.csv", catalogue.getvalue())
        write_atomically(path / SEEDS_YAML, seeds_yaml())
    return written


def write_failed_compile(out_dir: os.PathLike[str] | str, source: str) -> None:
    """After a compile that failed: empty rule tables and a catalogue saying so, so that no rule
    table looks valid and `dbt build` fails on the test last_compile_succeeded."""
    write_rules(RuleSet(), out_dir, source, status="failed")
