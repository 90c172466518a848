{{ config(materialized=incentives.materialized_when(incentives.using_scenarios(), 'view')) }}

-- The waivers of every evaluated participant: the actual ones (a waiver without entity_id is
-- everyone's, scenario participants' too), and a scenario participant
-- (int_incentives__scenario_participants) waived where its participant is. Without scenarios, the
-- actual waivers as they are.
with actual as (
    select * from {{ ref('incentives', 'stg_incentives__waivers') }}
),

scenario_participants as (
    select * from {{ ref('incentives', 'int_incentives__scenario_participants') }}
),

final as (
    select program_key, qualification_key, offer_key, entity_id from actual
    {%- if incentives.using_scenarios() %}
    union all
    select actual.program_key, actual.qualification_key, actual.offer_key, scenario_participants.evaluation_entity_id
    from actual
    inner join scenario_participants on scenario_participants.entity_id = actual.entity_id
    {%- endif %}
)

select * from final
