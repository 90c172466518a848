{{ config(materialized=incentives.materialized_when(incentives.using_scenarios(), 'table')) }}

-- Per scenario x participant x offer, the qualifications the scenario changes: those its scenario
-- participant passes (met or waived, as int_incentives__offer_status counts them) and the actual
-- participant does not (newly met), and the reverse (newly lost), each as sorted keys. A
-- program-level qualification counts on every offer of its program, as in qualification_results.
-- Only the participants a scenario names are read; a pair without changes has no row.
with status as (
    select * from {{ ref('incentives', 'int_incentives__qualification_status') }}
),

scenario_participants as (
    -- the what-if scenarios' (the forecast has its own marts: forecast_results)
    select * from {{ ref('incentives', 'int_incentives__scenario_participants') }}
    where not is_forecast
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

read_rows as (
    -- the rows of the scenario participants (a range their scans can skip by) and of the actual
    -- participants they stand for
    select status.* from status
    where {{ incentives._scenario_participant_range('status.entity_id') }}
    union all
    select status.* from status
    where status.entity_id in (select entity_id from scenario_participants)
),

evaluated as (
    -- a qualification passes when met or waived
    select
        entity_id,
        program_key,
        offer_key,
        qualification_key,
        qualification_level,
        coalesce(met, false) or coalesce(waived, false) as passed
    from read_rows
),

scenario_side as (
    select
        scenario_participants.scenario_id,
        scenario_participants.entity_id,
        evaluated.program_key,
        evaluated.offer_key,
        evaluated.qualification_key,
        evaluated.qualification_level,
        evaluated.passed
    from evaluated
    inner join scenario_participants on scenario_participants.evaluation_entity_id = evaluated.entity_id
),

actual_side as (
    select * from evaluated
    where evaluated.entity_id in (select entity_id from scenario_participants)
),

changed as (
    -- a participant new in the scenario (no actual row) passes nothing outside it
    select
        scenario_side.scenario_id,
        scenario_side.entity_id,
        scenario_side.program_key,
        scenario_side.offer_key,
        scenario_side.qualification_key,
        scenario_side.qualification_level,
        scenario_side.passed
    from scenario_side
    left join actual_side
        on actual_side.entity_id = scenario_side.entity_id
        and actual_side.program_key = scenario_side.program_key
        and actual_side.qualification_key = scenario_side.qualification_key
        and actual_side.qualification_level = scenario_side.qualification_level
        and coalesce(actual_side.offer_key, '') = coalesce(scenario_side.offer_key, '')
    where scenario_side.passed <> coalesce(actual_side.passed, false)
),

per_offer as (
    -- distinct: a key changed at both levels the same way is listed once
    select distinct
        changed.scenario_id,
        changed.entity_id,
        changed.program_key,
        coalesce(offers.offer_key, changed.offer_key) as offer_key,
        changed.qualification_key,
        changed.passed
    from changed
    left join offers
        on changed.qualification_level = 'program'
        and offers.program_key = changed.program_key
    where changed.qualification_level = 'offer' or offers.offer_key is not null
),

newly_met as (
    select scenario_id, entity_id, program_key, offer_key, {{ incentives.sorted_key_list('qualification_key') }} as qualification_keys
    from per_offer
    where passed
    group by scenario_id, entity_id, program_key, offer_key
),

newly_lost as (
    select scenario_id, entity_id, program_key, offer_key, {{ incentives.sorted_key_list('qualification_key') }} as qualification_keys
    from per_offer
    where not passed
    group by scenario_id, entity_id, program_key, offer_key
),

final as (
    select
        coalesce(newly_met.scenario_id, newly_lost.scenario_id) as scenario_id,
        coalesce(newly_met.entity_id, newly_lost.entity_id) as entity_id,
        coalesce(newly_met.program_key, newly_lost.program_key) as program_key,
        coalesce(newly_met.offer_key, newly_lost.offer_key) as offer_key,
        newly_met.qualification_keys as qualifications_newly_met,
        newly_lost.qualification_keys as qualifications_newly_lost
    from newly_met
    full outer join newly_lost
        on newly_lost.scenario_id = newly_met.scenario_id
        and newly_lost.entity_id = newly_met.entity_id
        and newly_lost.program_key = newly_met.program_key
        and newly_lost.offer_key = newly_met.offer_key
)

select * from final
