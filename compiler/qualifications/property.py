"""property: a request's or an entity's property (a number or a boolean) compared with the value.
Columns: property_key, property_level."""

from __future__ import annotations

from typing import Any

from ..emit import EmitContext
from ..program.models import TimePeriod
from ..validation.context import QualificationContext
from .base import Measure, QualificationKind


class Property(QualificationKind):
    types = ("property",)
    measures = "property"

    def check(self, ctx: QualificationContext) -> None:
        q = ctx.qualification
        if q.property is None:
            ctx.add("property", "missing field", None, "a property {key, type, level}")
            return
        if q.property.level == "transaction":
            ctx.add("property.level", "a property qualification cannot use level 'transaction'",
                    q.property.level, "request or entity")
        if q.property.type == "boolean":
            if q.operator != "equal_to":
                ctx.add("operator", "a boolean property only supports equal_to", q.operator, "equal_to")
            if not isinstance(q.value, bool):
                ctx.add("value", "a boolean property needs a boolean value", q.value, "true or false")
        elif isinstance(q.value, bool):
            ctx.add("value", "a number property needs a numeric value", q.value, "a number")

    def emit(self, g: EmitContext, qualification_id: int, q: Any, periods: dict[str, TimePeriod]) -> Measure:
        return Measure(property_key=q.property.key if q.property else None,
                       property_level=q.property.level if q.property else None)


KIND = Property()
