-- Ephemeral: int_incentives__qualification_measures, its one reader, runs this query as a CTE and
-- writes its rows once (no relation of its own).
{{ config(materialized='ephemeral') }}

-- The types whose macros name the measure `aggregated` (aggregated_amount, aggregated_quantity):
-- per participant x qualification, the net amount and quantity over the qualification's filters
-- (int_incentives__filter_totals; 0 without a matching transaction), evaluated by the types'
-- macros (macros/qualifications/): target, actual, difference and met, before waivers.
with qualifications as (
    {{ incentives._qualifications_of_measure(ref('incentives', 'int_incentives__evaluations'),
                                             ref('incentives', 'stg_incentives__rules_qualifications'), 'aggregated') }}
),

filter_totals as (
    select * from {{ ref('incentives', 'int_incentives__filter_totals') }}
),

measured as (
    select
        qualifications.*,
        coalesce(filter_totals.amount, 0) as filter_amount,
        coalesce(filter_totals.quantity, 0) as filter_quantity
    from qualifications
    left join filter_totals
        on filter_totals.filter_id = qualifications.filter_id and filter_totals.entity_id = qualifications.entity_id
),

final as (
    {{ incentives._evaluated_qualifications('measured', 'aggregated') }}
)

select * from final
