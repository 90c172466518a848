-- Ephemeral: int_incentives__qualification_measures, its one reader, runs this query as a CTE and
-- writes its rows once (no relation of its own).
{{ config(materialized='ephemeral') }}

-- The types whose macros name the measure `ratio` (share_of_wallet_percent, yoy_amount_index,
-- yoy_quantity_index, amount_average_index): per participant x qualification, the net amount and
-- quantity of the numerator's and of the denominator's filters (int_incentives__filter_totals; 0
-- without a matching transaction), evaluated by the types' macros (macros/qualifications/):
-- target, actual, difference and met, before waivers.
with qualifications as (
    {{ incentives._qualifications_of_measure(ref('incentives', 'int_incentives__evaluations'),
                                             ref('incentives', 'stg_incentives__rules_qualifications'), 'ratio') }}
),

filter_totals as (
    select * from {{ ref('incentives', 'int_incentives__filter_totals') }}
),

measured as (
    select
        qualifications.*,
        coalesce(numerator.amount, 0) as numerator_amount,
        coalesce(numerator.quantity, 0) as numerator_quantity,
        coalesce(denominator.amount, 0) as denominator_amount,
        coalesce(denominator.quantity, 0) as denominator_quantity
    from qualifications
    left join filter_totals as numerator
        on numerator.filter_id = qualifications.numerator_filter_id and numerator.entity_id = qualifications.entity_id
    left join filter_totals as denominator
        on denominator.filter_id = qualifications.denominator_filter_id and denominator.entity_id = qualifications.entity_id
),

final as (
    {{ incentives._evaluated_qualifications('measured', 'ratio') }}
)

select * from final
