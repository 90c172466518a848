-- One row per scenario x participant x offer that the scenario changes: its amount, whether it
-- qualifies, its stepped tier or any of its qualifications. The scenario side is the scenario
-- participant's (int_incentives__scenario_participants), evaluated by the same models as the
-- actual one: its qualifiers (int_incentives__offer_status), tier
-- (int_incentives__stepped_thresholds), the sum of its scenario_earnings rows and its qualification
-- changes (int_incentives__scenario_qualification_changes); the baseline side is offer_results'
-- row of the actual participant (none for a participant new in the scenario: 0 and not
-- qualified). docs/scenarios.md.
with scenario_participants as (
    -- the what-if scenarios' (the forecast has its own marts: forecast_results)
    select * from {{ ref('incentives', 'int_incentives__scenario_participants') }}
    where not is_forecast
),

offer_status as (
    select * from {{ ref('incentives', 'int_incentives__offer_status') }}
),

stepped as (
    select * from {{ ref('incentives', 'int_incentives__stepped_thresholds') }}
),

scenario_earnings as (
    select * from {{ ref('incentives', 'scenario_earnings') }}
),

baseline as (
    select * from {{ ref('incentives', 'offer_results') }}
),

qualification_changes as (
    select * from {{ ref('incentives', 'int_incentives__scenario_qualification_changes') }}
),

scenario_pairs as (
    select
        scenario_participants.scenario_id,
        scenario_participants.entity_id,
        offer_status.program_key,
        offer_status.offer_key,
        offer_status.qualified,
        stepped.current_tier_key
    from offer_status
    inner join scenario_participants on scenario_participants.evaluation_entity_id = offer_status.entity_id
    left join stepped
        on stepped.entity_id = offer_status.entity_id
        and stepped.offer_key = offer_status.offer_key
    where {{ incentives._scenario_participant_range('offer_status.entity_id') }}
),

scenario_amounts as (
    -- what the offer pays within the scenario: the sum of its rows, as offer_results sums
    -- potential_earnings'
    select scenario_id, entity_id, offer_key, sum(incentive_amount) as incentive_amount
    from scenario_earnings
    group by scenario_id, entity_id, offer_key
),

compared as (
    select
        scenario_pairs.scenario_id,
        scenario_pairs.entity_id,
        scenario_pairs.program_key,
        scenario_pairs.offer_key,
        coalesce(baseline.incentive_amount, 0) as baseline_incentive_amount,
        coalesce(scenario_amounts.incentive_amount, 0) as scenario_incentive_amount,
        coalesce(baseline.qualified, false) as baseline_qualified,
        scenario_pairs.qualified as scenario_qualified,
        baseline.current_tier_key as baseline_current_tier_key,
        scenario_pairs.current_tier_key as scenario_current_tier_key,
        qualification_changes.qualifications_newly_met,
        qualification_changes.qualifications_newly_lost
    from scenario_pairs
    left join scenario_amounts
        on scenario_amounts.scenario_id = scenario_pairs.scenario_id
        and scenario_amounts.entity_id = scenario_pairs.entity_id
        and scenario_amounts.offer_key = scenario_pairs.offer_key
    left join baseline
        on baseline.entity_id = scenario_pairs.entity_id
        and baseline.offer_key = scenario_pairs.offer_key
    left join qualification_changes
        on qualification_changes.scenario_id = scenario_pairs.scenario_id
        and qualification_changes.entity_id = scenario_pairs.entity_id
        and qualification_changes.offer_key = scenario_pairs.offer_key
),

final as (
    select
        scenario_id,
        entity_id,
        program_key,
        offer_key,
        {{ incentives.cast_money('baseline_incentive_amount') }} as baseline_incentive_amount,
        {{ incentives.cast_money('scenario_incentive_amount') }} as scenario_incentive_amount,
        {{ incentives.cast_money('scenario_incentive_amount - baseline_incentive_amount') }} as delta,
        baseline_qualified,
        scenario_qualified,
        baseline_current_tier_key,
        scenario_current_tier_key,
        qualifications_newly_met,
        qualifications_newly_lost,
        {{ incentives.run_id() }} as run_id
    from compared
    where scenario_incentive_amount <> baseline_incentive_amount
        or scenario_qualified <> baseline_qualified
        or case when scenario_current_tier_key = baseline_current_tier_key then false
                when scenario_current_tier_key is null and baseline_current_tier_key is null then false
                else true end
        or qualifications_newly_met is not null
        or qualifications_newly_lost is not null
)

select * from final
