{{ config(materialized=incentives.materialized_when(incentives.using_scenarios(), 'view')) }}

-- One row per scenario x participant that a scenario names (in scenarios or scenario_properties,
-- or the forecast's projected transactions: scenario_id '', `is_forecast`; docs/forecast.md),
-- with the participant the scenario is evaluated as: a copy of the participant under its own id,
-- `evaluation_entity_id`, that every intermediate model treats as a participant like any other
-- (docs/scenarios.md). The id is '~' || length(scenario_id) || '~' || scenario_id || '~' ||
-- entity_id: no two scenario x participant pairs share one, and a data test checks that no actual
-- participant has one.
with scenario_transactions as (
    select * from {{ ref('incentives', 'int_incentives__hypothetical_transactions') }}
),

scenario_properties as (
    select * from {{ ref('incentives', 'stg_incentives__scenario_properties') }}
),

named as (
    select scenario_id, entity_id from scenario_transactions
    union
    select scenario_id, entity_id from scenario_properties
),

final as (
    select
        scenario_id,
        entity_id,
        scenario_id = '' as is_forecast,
        {{ dbt.concat(["'~'", "cast(length(scenario_id) as " ~ dbt.type_string() ~ ")", "'~'", 'scenario_id', "'~'", 'entity_id']) }} as evaluation_entity_id
    from named
)

select * from final
