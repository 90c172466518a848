"""CPU seconds of the benchmark's processes, shared by bench/run.py and bench/contract_floor.py.

    from cputime import cpu_seconds
    started = cpu_seconds()                          # this process so far
    children = cpu_seconds(resource.RUSAGE_CHILDREN)  # its finished (waited-for) children
"""

from __future__ import annotations

import resource


def cpu_seconds(who: int = resource.RUSAGE_SELF) -> float:
    """User + system CPU seconds so far of this process (RUSAGE_SELF) or of its finished children."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime
