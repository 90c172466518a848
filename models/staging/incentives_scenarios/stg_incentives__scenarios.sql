{{ config(materialized=incentives.materialized_when(var('incentives_using_scenarios', false), 'view')) }}
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
        {{- incentives._typed_transaction_columns() }}
    from source
)

select * from final
{%- else %}
-- incentives_using_scenarios is false: no scenarios (an empty table of the same columns)
select
        cast(null as {{ dbt.type_string() }}) as scenario_id,
        {{- incentives._typed_transaction_columns(empty=true) }}
where 1 = 0
{%- endif %}
