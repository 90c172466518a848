"""The qualification kinds, one module each (filters.py, brand_count.py, ratio.py, property.py):
the qualification types each covers and what they measure, their checks and the columns of their
`qualifications` row (base.py: what a kind is). A new qualification type is a type of a kind's
module, or a new module here registered below; on the dbt side, its macro
(macros/qualifications/)."""

from __future__ import annotations

from . import brand_count, filters, property, ratio
from .base import QualificationKind

# every qualification type's kind, in the order of the rule tables' accepted values
REGISTRY: dict[str, QualificationKind] = {
    t: kind for kind in (filters.KIND, brand_count.KIND, ratio.KIND, property.KIND) for t in kind.types}
# qualification type -> what it measures (`QualificationKind.measures`)
QUALIFICATION_TYPES: dict[str, str] = {t: kind.measures for t, kind in REGISTRY.items()}
