{{ config(materialized=incentives.materialized_when(var('incentives_using_scenario_properties', false), 'view')) }}
{%- if var('incentives_using_scenario_properties', false) %}
-- The property values a what-if scenario replaces for one participant (request or entity level):
-- within the scenario, the participant's value of that level and key is this one
-- (docs/scenarios.md).
with source as (
    select * from {{ source('incentives_scenarios', 'scenario_properties') }}
),

final as (
    select
        trim(cast(scenario_id as {{ dbt.type_string() }})) as scenario_id,
        lower(trim(cast(level as {{ dbt.type_string() }}))) as level,
        trim(cast(entity_id as {{ dbt.type_string() }})) as entity_id,
        cast(key as {{ dbt.type_string() }}) as property_key,
        cast(value as {{ dbt.type_string() }}) as property_value
    from source
)

select * from final
{%- else %}
-- incentives_using_scenario_properties is false: no property overrides (an empty table of the
-- same columns)
select
        cast(null as {{ dbt.type_string() }}) as scenario_id,
        cast(null as {{ dbt.type_string() }}) as level,
        cast(null as {{ dbt.type_string() }}) as entity_id,
        cast(null as {{ dbt.type_string() }}) as property_key,
        cast(null as {{ dbt.type_string() }}) as property_value
where 1 = 0
{%- endif %}
