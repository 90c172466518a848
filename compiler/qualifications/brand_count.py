"""brand_count: how many brands the transactions its filters match are of, counting only the
listed brands (`brand_keys`, when given) and leaving out the excluded SKUs. Columns: filter_id,
has_brand_list; rule table: qualification_brand_rules."""

from __future__ import annotations

from typing import Any

from ..emit import EmitContext
from ..program.models import TimePeriod
from .base import Measure
from .filters import Filters


class BrandCount(Filters):
    types = ("brand_count",)

    def emit(self, g: EmitContext, qualification_id: int, q: Any, periods: dict[str, TimePeriod]) -> Measure:
        measure = Measure(filter_id=g.filter_id(q.filters, periods), has_brand_list=bool(q.brand_keys))
        for rule, keys in (("brand", q.brand_keys), ("excluded_sku", q.excluded_sku_keys)):
            g.add_rows("qualification_brand_rules", [(qualification_id, rule, key) for key in sorted(set(keys or []))])
        return measure


KIND = BrandCount()
