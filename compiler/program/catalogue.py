"""The programs of a catalogue, in two models:

- `ProgramShape`: the JSON's shape, every field typed but an offer's `incentive` object, which its
  strategy checks (compiler/strategies/) so that every problem of a program is found at once;
- `Program`: a program whose offers are typed by their strategy, a discriminated union on
  `strategy_key` (`offer.incentive` is a SteppedIncentive, a StackedIncentive, ...). It is what
  the rule tables are generated from; `typed_program` builds it from a checked ProgramShape
  (validating `Program` directly from JSON gives the same)."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field

from ..strategies import REGISTRY, STRATEGIES
from .base import OfferBase, ProgramBase


class OfferShape(OfferBase):
    strategy_key: Literal[STRATEGIES]  # type: ignore[valid-type]
    incentive: dict[str, Any] | None = None  # checked by its strategy


class ProgramShape(ProgramBase):
    offers: list[OfferShape] = Field(default_factory=list)


Offer = Annotated[Union[tuple(s.offer_model for s in REGISTRY.values())], Field(discriminator="strategy_key")]  # type: ignore[valid-type]


class Program(ProgramBase):
    offers: list[Offer] = Field(default_factory=list)  # type: ignore[valid-type]


def typed_program(shape: ProgramShape) -> Program:
    """The program, its offers typed by their strategy (the strategies' checks found no problem)."""
    offers = [REGISTRY[o.strategy_key].typed_offer(o) for o in shape.offers]
    return Program.from_validated({**dict(shape), "offers": offers})
