{%- if var('incentives_using_scenarios', false) %}
-- The hypothetical transactions of the what-if scenarios, typed as the actual transactions are
-- (stg_incentives__transactions): each is added to its participant's actual transactions within
-- its scenario (docs/scenarios.md).
with source as (
    select * from {{ source('incentives_scenarios', 'scenarios') }}
),

final as (
    select
        trim(cast(scenario_id as {{ dbt.type_string() }})) as scenario_id,
        cast(entity_id as {{ dbt.type_string() }}) as entity_id,
        cast(transaction_id as {{ dbt.type_string() }}) as transaction_id,
        cast(transaction_type as {{ dbt.type_string() }}) as transaction_type,
        cast(transaction_date as date) as transaction_date,
        cast(sku_key as {{ dbt.type_string() }}) as sku_key,
        cast(quantity as {{ incentives.type_input_number() }}) as quantity,
        cast(uom_key as {{ dbt.type_string() }}) as uom_key,
        cast(amount as {{ incentives.type_input_number() }}) as amount
    from source
)

select * from final
{%- else %}
-- incentives_using_scenarios is false: no scenarios (an empty table of the same columns)
select
        cast(null as {{ dbt.type_string() }}) as scenario_id,
        cast(null as {{ dbt.type_string() }}) as entity_id,
        cast(null as {{ dbt.type_string() }}) as transaction_id,
        cast(null as {{ dbt.type_string() }}) as transaction_type,
        cast(null as date) as transaction_date,
        cast(null as {{ dbt.type_string() }}) as sku_key,
        cast(null as {{ incentives.type_input_number() }}) as quantity,
        cast(null as {{ dbt.type_string() }}) as uom_key,
        cast(null as {{ incentives.type_input_number() }}) as amount
where 1 = 0
{%- endif %}
