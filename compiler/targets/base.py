"""The one interface of a target: what `incentives run` needs of an engine.

A run (compiler/runner.py) takes the target's run lock, then runs the run's steps on it
(compiler/run/): compile and load (load.py, compiling with compiler/compile/), build (build.py),
record (record.py) and swap the new results in. Where the results are built and how they are swapped in
is the target's: a new DuckDB file renamed over the old one (duckdb.py), fresh schemas renamed
or copied over the live ones (warehouse.py, for postgres.py, spark.py and spark_thrift.py)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, ContextManager, Iterable, Protocol

from ..run.progress import Say, say_to_stdout
from ..run.record import Summary


@dataclass(frozen=True)
class RunJob:
    """What one `incentives run` computes, whatever the target."""

    programs: Path
    data_dir: Path
    say: Say = say_to_stdout
    threads: int = 1
    unit_tests: bool = False
    skip_invalid_programs: bool = False  # leave out the programs with problems (rejected_programs)
    skip_invalid_rows: bool = False  # leave out the input rows with problems (rejected_rows)
    statements: Path | None = None  # the vendor's statements to reconcile (compiler/statements.py)
    forecast: dict[str, Any] | None = None  # the forecast's dbt vars (docs/forecast.md); None: off


class RunLock(Protocol):
    """One run at a time per target (compiler/run/locks.py)."""

    previous_owner: str

    def acquire(self, wait: float | None = None) -> ContextManager[Any]:
        ...


class Target(ABC):
    """An engine a run builds on."""

    name: ClassVar[str]  # as in profiles/profiles.yml and `incentives run --target`
    adapter_type: ClassVar[str]  # the dbt adapter its profile target must have

    @classmethod
    @abstractmethod
    def create(cls, database: Path | None = None, settings: dict[str, Any] | None = None) -> "Target":
        """The target of a run: a DuckDB file (`database`) or a profile target (`settings`)."""

    @classmethod
    def prepare_environment(cls) -> None:
        """Called before its profile is rendered (for environment variables the profile reads)."""

    @abstractmethod
    def lock(self) -> RunLock:
        """The run lock of this target."""

    @abstractmethod
    def run_locked(self, job: RunJob) -> Summary:
        """Compile, load, build, record and swap in, with the lock held; the summary of the results."""

    @abstractmethod
    def read_tables(self, tables: Iterable[str], schema: str | None = None) -> dict[str, list[dict[str, Any]]]:
        """Rows of result tables, as dicts."""

    def run(self, job: RunJob, wait: float | None = None) -> Summary:
        """The run, holding the target's lock throughout (`wait`: seconds to wait for another run's
        lock; None: fail at once)."""
        with self.lock().acquire(wait):
            return self.run_locked(job)
