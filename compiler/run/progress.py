"""A run's progress: the lines it says as it goes and the seconds of each phase."""

from __future__ import annotations

import time
from typing import Callable

Say = Callable[[str], None]


def say_to_stdout(message: str) -> None:
    print(message, flush=True)


class PhaseTimer:
    """Seconds per phase of a run: call it with a phase's name when the phase ends."""

    def __init__(self) -> None:
        self.started = self.mark = time.perf_counter()
        self.phases: dict[str, float] = {}

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name] = now - self.mark
        self.mark = now

    def alongside(self, name: str, seconds: float) -> None:
        """A phase that ran in parallel with the others (outside their sequence), listed first."""
        self.phases = {name: seconds, **self.phases}

    def done(self) -> dict[str, float]:
        """The phases and the total."""
        self.phases["total"] = time.perf_counter() - self.started
        return self.phases
