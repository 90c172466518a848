-- One row per scenario x participant x offer that the scenario changes: its amount, whether it
-- qualifies, its stepped tier or any of its qualifications. The scenario side is the scenario
-- participant's, evaluated by the same models as the actual one (int_incentives__scenario_offers:
-- its qualifier, tier and the sum of its earning rows, those of scenario_earnings) and its
-- qualification changes (int_incentives__scenario_qualification_changes); the baseline side is offer_results'
-- row of the actual participant (none for a participant new in the scenario: 0 and not
-- qualified). docs/scenarios.md.
{%- if incentives.scenario_models_built() %}
with scenario_offers as (
    -- the what-if scenarios' (the forecast has its own mart: forecast_results)
    select * from {{ ref('incentives', 'int_incentives__scenario_offers') }}
    where not is_forecast
),

baseline as (
    select * from {{ ref('incentives', 'offer_results') }}
),

qualification_changes as (
    select * from {{ ref('incentives', 'int_incentives__scenario_qualification_changes') }}
),

compared as (
    select
        scenario_offers.scenario_id,
        scenario_offers.entity_id,
        scenario_offers.program_key,
        scenario_offers.offer_key,
        coalesce(baseline.incentive_amount, 0) as baseline_incentive_amount,
        scenario_offers.incentive_amount as scenario_incentive_amount,
        coalesce(baseline.qualified, false) as baseline_qualified,
        scenario_offers.qualified as scenario_qualified,
        baseline.current_tier_key as baseline_current_tier_key,
        scenario_offers.current_tier_key as scenario_current_tier_key,
        qualification_changes.qualifications_newly_met,
        qualification_changes.qualifications_newly_lost
    from scenario_offers
    left join baseline
        on baseline.entity_id = scenario_offers.entity_id
        and baseline.offer_key = scenario_offers.offer_key
    left join qualification_changes
        on qualification_changes.scenario_id = scenario_offers.scenario_id
        and qualification_changes.entity_id = scenario_offers.entity_id
        and qualification_changes.offer_key = scenario_offers.offer_key
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
{%- else %}
-- scenarios off: no rows, the contract's columns
-- (built after the body's first input, as with it: {{ ref('incentives', 'offer_results') }})
{{ incentives._no_rows_of_contract() }}
{%- endif %}
