-- Ephemeral: int_incentives__qualification_measures, its one reader, runs this query as a CTE and
-- writes its rows once (no relation of its own).
{{ config(materialized='ephemeral') }}

-- The types whose macros name the measure `brand_count` (brand_count): per participant x
-- qualification, the number of brands counted (int_incentives__brand_counts; 0 without a row),
-- evaluated by the type's macro (macros/qualifications/): target, actual, difference and met,
-- before waivers.
with evaluations as (
    select * from {{ ref('incentives', 'int_incentives__evaluations') }}
),

qualifications as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualifications') }}
    where qualification_type in ({{ incentives.types_of_measure('brand_count') }})
),

brand_counts as (
    select * from {{ ref('incentives', 'int_incentives__brand_counts') }}
),

measured as (
    select
        evaluations.entity_id,
        qualifications.*,
        coalesce(brand_counts.brand_count, 0) as brand_count
    from evaluations
    inner join qualifications on qualifications.program_key = evaluations.program_key
    left join brand_counts
        on brand_counts.qualification_id = qualifications.qualification_id
        and brand_counts.entity_id = evaluations.entity_id
),

final as (
    {{ incentives._evaluated_qualifications('measured', 'brand_count') }}
)

select * from final
