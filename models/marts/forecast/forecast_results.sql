-- One row per participant x offer of offer_results, with where the offer lands at the horizon
-- and what to accrue today (docs/forecast.md). The projection is the forecast participant
-- (int_incentives__scenario_offers, is_forecast): the participant's actual transactions plus its
-- projected ones (int_incentives__forecast_transactions), evaluated by the same models as every
-- participant. projected_season_amount is the sum of its earning rows, accrual_to_date the sum of
-- those of its actual transactions: what they earn under the projected outcome (tier,
-- qualification, stack and fixed-amount share). A participant with nothing projected (method none)
-- lands where it is: its projected values are offer_results'. Empty unless incentives_using_forecast.
{%- if incentives.forecast_models_built() %}
with baseline as (
    select * from {{ ref('incentives', 'offer_results') }}
    {%- if not incentives.using_forecast() %}
    where 1 = 0
    {%- endif %}
),

forecast_participants as (
    select * from {{ ref('incentives', 'int_incentives__forecast_participants') }}
),

season as (
    select distinct as_of, horizon from forecast_participants
),

projected as (
    -- the forecast participants' side: qualifier, tier, all their earning rows and the actual ones'
    select * from {{ ref('incentives', 'int_incentives__scenario_offers') }}
    where is_forecast
),

compared as (
    select
        baseline.entity_id,
        baseline.program_key,
        baseline.offer_key,
        season.as_of,
        season.horizon,
        coalesce(forecast_participants.method, 'none') as method,
        forecast_participants.growth_factor,
        baseline.incentive_amount as earned_to_date,
        coalesce(projected.qualified, baseline.qualified) as projected_qualified,
        case when projected.entity_id is not null then projected.current_tier_key
             else baseline.current_tier_key end as projected_tier_key,
        coalesce(projected.incentive_amount, baseline.incentive_amount) as projected_season_amount,
        coalesce(projected.actual_incentive_amount, baseline.incentive_amount) as accrual_to_date
    from baseline
    cross join season
    left join forecast_participants on forecast_participants.entity_id = baseline.entity_id
    left join projected
        on projected.entity_id = baseline.entity_id
        and projected.offer_key = baseline.offer_key
),

final as (
    select
        entity_id,
        program_key,
        offer_key,
        as_of,
        horizon,
        method,
        growth_factor,
        {{ incentives.cast_money('earned_to_date') }} as earned_to_date,
        projected_qualified,
        projected_tier_key,
        {{ incentives.cast_money('projected_season_amount') }} as projected_season_amount,
        {{ incentives.cast_money('accrual_to_date') }} as accrual_to_date,
        {{ incentives.cast_money('accrual_to_date - earned_to_date') }} as accrual_minus_earned,
        {{ incentives.run_id() }} as run_id
    from compared
)

select * from final
{%- else %}
-- the forecast off: no rows, the contract's columns
-- (built after the body's first input, as with it: {{ ref('incentives', 'offer_results') }})
{{ incentives._no_rows_of_contract() }}
{%- endif %}
