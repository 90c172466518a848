"""The strategies of an offer, one module each (standard.py, stepped.py, stacked.py): what each
validates and the rule rows it emits (base.py: what a strategy is). A new strategy is a new
module here, registered below."""

from __future__ import annotations

from . import stacked, standard, stepped
from .base import Strategy

# every strategy by its key, in the order of the rule tables' accepted values
REGISTRY: dict[str, Strategy] = {s.key: s for s in (standard.STRATEGY, stepped.STRATEGY, stacked.STRATEGY)}
STRATEGIES = tuple(REGISTRY)
