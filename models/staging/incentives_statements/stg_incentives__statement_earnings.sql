-- The vendor statements' earning lines (the API's potential_earnings, one participant's response
-- per statement), typed: text trimmed (empty as null), numbers DECIMAL(38,10) as written.
{%- if var('incentives_using_statements', false) %}
with source as (
    select * from {{ source('incentives_statements', 'statement_earnings') }}
),

final as (
    select
        {{ incentives._statement_text('entity_id') }} as entity_id,
        {{ incentives._statement_text('offer_key') }} as offer_key,
        {{ incentives._statement_text('offer_calculator') }} as offer_calculator,
        {{ incentives._statement_text('sku_key') }} as sku_key,
        {{ incentives._statement_text('incentive_rate_key') }} as incentive_rate_key,
        {{ incentives._statement_text('incentive_rate_measure') }} as incentive_rate_measure,
        {{ incentives._statement_number('incentive_rate_value') }} as incentive_rate_value,
        {{ incentives._statement_number('offer_sku_pay_rate') }} as offer_sku_pay_rate,
        {{ incentives._statement_text('transaction_id') }} as transaction_id,
        {{ incentives._statement_number('provided_quantity') }} as provided_quantity,
        {{ incentives._statement_text('provided_uom_key') }} as provided_uom_key,
        {{ incentives._statement_number('provided_amount') }} as provided_amount,
        {{ incentives._statement_number('incentivized_quantity') }} as incentivized_quantity,
        {{ incentives._statement_number('incentivized_amount') }} as incentivized_amount,
        {{ incentives._statement_number('incentive_amount') }} as incentive_amount,
        {{ incentives._statement_number('incentive_contribution_percent') }} as incentive_contribution_percent,
        {{ incentives._statement_number('incentive_effective_rate') }} as incentive_effective_rate
    from source
)

select * from final
{%- else %}
-- incentives_using_statements is false: no statements (an empty table of the same columns)
select
    cast(null as {{ dbt.type_string() }}) as entity_id,
    cast(null as {{ dbt.type_string() }}) as offer_key,
    cast(null as {{ dbt.type_string() }}) as offer_calculator,
    cast(null as {{ dbt.type_string() }}) as sku_key,
    cast(null as {{ dbt.type_string() }}) as incentive_rate_key,
    cast(null as {{ dbt.type_string() }}) as incentive_rate_measure,
    {{ incentives.cast_measure('null') }} as incentive_rate_value,
    {{ incentives.cast_measure('null') }} as offer_sku_pay_rate,
    cast(null as {{ dbt.type_string() }}) as transaction_id,
    {{ incentives.cast_measure('null') }} as provided_quantity,
    cast(null as {{ dbt.type_string() }}) as provided_uom_key,
    {{ incentives.cast_measure('null') }} as provided_amount,
    {{ incentives.cast_measure('null') }} as incentivized_quantity,
    {{ incentives.cast_measure('null') }} as incentivized_amount,
    {{ incentives.cast_measure('null') }} as incentive_amount,
    {{ incentives.cast_measure('null') }} as incentive_contribution_percent,
    {{ incentives.cast_measure('null') }} as incentive_effective_rate
where 1 = 0
{%- endif %}
