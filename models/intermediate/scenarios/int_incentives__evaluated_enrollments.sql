{{ config(materialized=incentives.materialized_when(incentives.using_scenarios(), 'view')) }}

-- The enrollments of every evaluated participant: the actual ones, and a scenario participant
-- (int_incentives__scenario_participants) enrolled where its participant is. Without scenarios,
-- the actual enrollments as they are.
with actual as (
    select * from {{ ref('incentives', 'stg_incentives__enrollments') }}
),

scenario_participants as (
    select * from {{ ref('incentives', 'int_incentives__scenario_participants') }}
),

final as (
    select entity_id, program_key from actual
    {%- if incentives.using_scenarios() %}
    union all
    select scenario_participants.evaluation_entity_id, actual.program_key
    from actual
    inner join scenario_participants on scenario_participants.entity_id = actual.entity_id
    {%- endif %}
)

select * from final
