{{ config(materialized=incentives.materialized_when(incentives.using_scenarios(), 'table')) }}

-- One row per scenario participant (a what-if scenario's or the forecast's,
-- int_incentives__scenario_participants) x offer it is evaluated on, under its scenario and
-- participant: its qualifier (int_incentives__offer_status), stepped tier
-- (int_incentives__stepped_thresholds) and what the offer pays within the scenario, the sum of its
-- earning rows (int_incentives__earnings, as offer_results sums potential_earnings') and of those
-- of its actual transactions (not one of int_incentives__hypothetical_transactions). The scenario
-- side of scenario_results and of forecast_results.
with scenario_participants as (
    select * from {{ ref('incentives', 'int_incentives__scenario_participants') }}
),

offer_status as (
    select * from {{ ref('incentives', 'int_incentives__offer_status') }}
    where {{ incentives._scenario_participant_range('entity_id') }}
),

stepped as (
    select * from {{ ref('incentives', 'int_incentives__stepped_thresholds') }}
    where {{ incentives._scenario_participant_range('entity_id') }}
),

earnings as (
    -- a view: the range spares it the actual participants' rows (_scenario_participant_range)
    select * from {{ ref('incentives', 'int_incentives__earnings') }}
    where {{ incentives._scenario_participant_range('entity_id') }}
),

hypothetical as (
    select scenario_id, entity_id, transaction_id from {{ ref('incentives', 'int_incentives__hypothetical_transactions') }}
),

pairs as (
    select
        scenario_participants.scenario_id,
        scenario_participants.entity_id,
        scenario_participants.is_forecast,
        offer_status.program_key,
        offer_status.offer_key,
        offer_status.qualified,
        stepped.current_tier_key
    from offer_status
    inner join scenario_participants on scenario_participants.evaluation_entity_id = offer_status.entity_id
    left join stepped
        on stepped.entity_id = offer_status.entity_id
        and stepped.offer_key = offer_status.offer_key
),

amounts as (
    select
        scenario_participants.scenario_id,
        scenario_participants.entity_id,
        earnings.offer_key,
        sum(earnings.incentive_amount) as incentive_amount,
        sum(case when hypothetical.transaction_id is null then earnings.incentive_amount else 0 end) as actual_incentive_amount
    from earnings
    inner join scenario_participants on scenario_participants.evaluation_entity_id = earnings.entity_id
    left join hypothetical
        on hypothetical.scenario_id = scenario_participants.scenario_id
        and hypothetical.entity_id = scenario_participants.entity_id
        and hypothetical.transaction_id = earnings.transaction_id
    group by scenario_participants.scenario_id, scenario_participants.entity_id, earnings.offer_key
),

final as (
    select
        pairs.scenario_id,
        pairs.entity_id,
        pairs.is_forecast,
        pairs.program_key,
        pairs.offer_key,
        pairs.qualified,
        pairs.current_tier_key,
        {{ incentives.cast_money('coalesce(amounts.incentive_amount, 0)') }} as incentive_amount,
        {{ incentives.cast_money('coalesce(amounts.actual_incentive_amount, 0)') }} as actual_incentive_amount
    from pairs
    left join amounts
        on amounts.scenario_id = pairs.scenario_id
        and amounts.entity_id = pairs.entity_id
        and amounts.offer_key = pairs.offer_key
)

select * from final
