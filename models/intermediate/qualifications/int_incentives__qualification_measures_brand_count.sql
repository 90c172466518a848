-- Ephemeral: int_incentives__qualification_measures, its one reader, runs this query as a CTE and
-- writes its rows once (no relation of its own).
{{ config(materialized='ephemeral') }}

-- The types whose macros name the measure `brand_count` (brand_count): per participant x
-- qualification, the number of brands counted (int_incentives__brand_counts; 0 without a row),
-- evaluated by the type's macro (macros/qualifications/): target, actual, difference and met,
-- before waivers.
with qualifications as (
    {{ incentives._qualifications_of_measure(ref('incentives', 'int_incentives__evaluations'),
                                             ref('incentives', 'stg_incentives__rules_qualifications'), 'brand_count') }}
),

brand_counts as (
    select * from {{ ref('incentives', 'int_incentives__brand_counts') }}
),

measured as (
    select
        qualifications.*,
        coalesce(brand_counts.brand_count, 0) as brand_count
    from qualifications
    left join brand_counts
        on brand_counts.qualification_id = qualifications.qualification_id
        and brand_counts.entity_id = qualifications.entity_id
),

final as (
    {{ incentives._evaluated_qualifications('measured', 'brand_count') }}
)

select * from final
