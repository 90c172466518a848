{{ config(materialized=incentives.materialized_when(incentives.using_scenarios(), 'view')) }}

-- The properties of every evaluated participant: the actual properties, and for each scenario
-- participant (int_incentives__scenario_participants) a copy of its participant's request- and
-- entity-level rows under the scenario participant's id, where the scenario's own values
-- (scenario_properties) replace those of the same level and key. The request defaults (no
-- entity_id) and the transaction-level rows (by transaction_id) apply to the copies as they are.
-- Without scenarios, the actual properties as they are.
with actual as (
    select * from {{ ref('incentives', 'stg_incentives__properties') }}
),

overrides as (
    select * from {{ ref('incentives', 'stg_incentives__scenario_properties') }}
),

scenario_participants as (
    select * from {{ ref('incentives', 'int_incentives__scenario_participants') }}
),

final as (
    select level, entity_id, transaction_id, property_key, property_value
    from actual
    {%- if incentives.using_scenarios() %}
    union all
    select actual.level, scenario_participants.evaluation_entity_id, actual.transaction_id, actual.property_key,
        actual.property_value
    from actual
    inner join scenario_participants on scenario_participants.entity_id = actual.entity_id
    left join overrides
        on overrides.scenario_id = scenario_participants.scenario_id
        and overrides.entity_id = scenario_participants.entity_id
        and overrides.level = actual.level
        and overrides.property_key = actual.property_key
    where actual.level in ('request', 'entity') and actual.transaction_id is null
        and overrides.scenario_id is null
    union all
    select overrides.level, scenario_participants.evaluation_entity_id, cast(null as {{ dbt.type_string() }}),
        overrides.property_key, overrides.property_value
    from overrides
    inner join scenario_participants
        on scenario_participants.scenario_id = overrides.scenario_id
        and scenario_participants.entity_id = overrides.entity_id
    {%- endif %}
)

select * from final
