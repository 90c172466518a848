"""The engines a run builds on: DuckDB, PostgreSQL, Spark (in-process session) and a Spark Thrift
server, each an implementation of one interface, `base.Target` (run lock, the locked run, reading
result tables). The list of targets is `TARGETS` below; each lives in its own module of this
package, which names its class `TARGET`, imported only when that target is used."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RunError

if TYPE_CHECKING:  # for the annotations only
    from .base import Target

# target name (as in profiles/profiles.yml and `incentives run --target`) -> its module here
_MODULES = {"duckdb": "duckdb", "postgres": "postgres", "spark": "spark", "spark_thrift": "spark_thrift"}
TARGETS = tuple(_MODULES)


def target_class(name: str) -> type["Target"]:
    """The class implementing target `name`."""
    if name not in _MODULES:
        raise RunError(f"unknown target {name!r}; one of {', '.join(TARGETS)}")
    return importlib.import_module(f"{__name__}.{_MODULES[name]}").TARGET  # type: ignore[no-any-return]


def get_target(name: str, database: Path | None = None, settings: dict[str, Any] | None = None) -> "Target":
    """Target `name`: a DuckDB file (`database`), or the profile's target of that name (`settings`:
    its rendered output of profiles/profiles.yml, read when not given)."""
    return target_class(name).create(database=database, settings=settings)
