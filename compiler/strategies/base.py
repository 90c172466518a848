"""What a strategy is: the calculators it accepts, its typed offer (the `incentive` object of the
JSON as a pydantic model), the checks specific to it and the rule rows it emits (through
`EmitContext`, compiler/emit.py).

A strategy is one module of this package defining a subclass of `Strategy` and naming an instance
of it `STRATEGY`; compiler/strategies/__init__.py lists the modules."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from pydantic import TypeAdapter, ValidationError

from ..emit import EmitContext
from ..program.base import OfferBase, ProgramBase
from ..program.models import TimePeriod
from ..validation.context import OfferContext
from ..validation.locate import pydantic_issues

# the columns of an `offers` row a strategy fills: threshold type, threshold filter id, threshold
# property key and level (stepped offers), and the earning filter id
Threshold = tuple[Any, Any, Any, Any]
NO_THRESHOLD: Threshold = (None, None, None, None)

class Strategy(ABC):
    """One strategy (`strategy_key` of an offer)."""

    key: ClassVar[str]
    calculators: ClassVar[tuple[str, ...]]  # the calculator keys valid with it
    offer_model: ClassVar[type[OfferBase]]  # the typed offer: strategy_key Literal[key], typed incentive

    def parse_incentive(self, offer: Any) -> Any:
        """The offer's `incentive` as this strategy's model (the offer passed `check`)."""
        return offer.incentive

    def typed_offer(self, offer: Any) -> OfferBase:
        """The offer (validated, with the JSON's `incentive` still a dict) as `offer_model`."""
        return self.offer_model.from_validated({**dict(offer), "incentive": self.parse_incentive(offer)})

    @abstractmethod
    def check(self, ctx: OfferContext) -> None:
        """Add the problems specific to this strategy of the offer `ctx.offer` (`ctx.add`, at a
        path inside the offer; `ctx.periods`: the period keys it can name)."""

    @abstractmethod
    def emit(self, g: EmitContext, program: ProgramBase, offer: Any,
             periods: dict[str, TimePeriod]) -> tuple[Threshold, int | None]:
        """Append the offer's rows to its strategy's rule tables (`g.add_row`); return the
        threshold columns and the earning filter id of its `offers` row."""


class IncentiveObjectStrategy(Strategy):
    """A strategy whose offers have one `incentive` object, typed by `incentive_model`."""

    incentive_model: ClassVar[type[Any]]
    _adapter: ClassVar[TypeAdapter[Any]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "incentive_model" in cls.__dict__:
            cls._adapter = TypeAdapter(cls.incentive_model)

    def parse_incentive(self, offer: Any) -> Any:
        return self._adapter.validate_python(offer.incentive)

    def check(self, ctx: OfferContext) -> None:
        offer = ctx.offer
        if not isinstance(offer.incentive, dict):
            ctx.add("incentive", "missing field" if offer.incentive is None else "invalid value",
                    offer.incentive, f"an incentive object for a {offer.strategy_key} offer")
            return
        try:
            incentive = self.parse_incentive(offer)
        except ValidationError as exc:
            pydantic_issues(ctx.inside("incentive"), exc)
            return
        self.check_incentive(ctx, incentive)

    @abstractmethod
    def check_incentive(self, ctx: OfferContext, incentive: Any) -> None:
        """Add the problems of a well-formed incentive object (`incentive`, the offer's parsed)."""
