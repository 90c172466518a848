-- One row per participant x offer of offer_results, with where the offer lands at the horizon
-- and what to accrue today (docs/forecast.md). The projection is the forecast participant
-- (int_incentives__scenario_participants, is_forecast): the participant's actual transactions plus
-- its projected ones (int_incentives__forecast_transactions), evaluated by the same models as
-- every participant. projected_season_amount is the sum of its earning rows, accrual_to_date the
-- sum of those of its actual transactions: what they earn under the projected outcome (tier,
-- qualification, stack and fixed-amount share). A participant with nothing projected (method none)
-- lands where it is: its projected values are offer_results'. Empty unless incentives_using_forecast.
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

evaluated as (
    select entity_id, evaluation_entity_id
    from {{ ref('incentives', 'int_incentives__scenario_participants') }}
    where is_forecast
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

projected_transactions as (
    select entity_id, transaction_id from {{ ref('incentives', 'int_incentives__forecast_transactions') }}
),

projected_pairs as (
    select
        evaluated.entity_id,
        offer_status.offer_key,
        offer_status.qualified,
        stepped.current_tier_key
    from offer_status
    inner join evaluated on evaluated.evaluation_entity_id = offer_status.entity_id
    left join stepped
        on stepped.entity_id = offer_status.entity_id
        and stepped.offer_key = offer_status.offer_key
),

projected_amounts as (
    select
        evaluated.entity_id,
        earnings.offer_key,
        sum(earnings.incentive_amount) as projected_season_amount,
        sum(case when projected_transactions.transaction_id is null then earnings.incentive_amount else 0 end) as accrual_to_date
    from earnings
    inner join evaluated on evaluated.evaluation_entity_id = earnings.entity_id
    left join projected_transactions
        on projected_transactions.entity_id = evaluated.entity_id
        and projected_transactions.transaction_id = earnings.transaction_id
    group by evaluated.entity_id, earnings.offer_key
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
        projected_pairs.entity_id is not null as projected,
        coalesce(projected_pairs.qualified, baseline.qualified) as projected_qualified,
        case when projected_pairs.entity_id is not null then projected_pairs.current_tier_key
             else baseline.current_tier_key end as projected_tier_key,
        case when projected_pairs.entity_id is not null then coalesce(projected_amounts.projected_season_amount, 0)
             else baseline.incentive_amount end as projected_season_amount,
        case when projected_pairs.entity_id is not null then coalesce(projected_amounts.accrual_to_date, 0)
             else baseline.incentive_amount end as accrual_to_date
    from baseline
    cross join season
    left join forecast_participants on forecast_participants.entity_id = baseline.entity_id
    left join projected_pairs
        on projected_pairs.entity_id = baseline.entity_id
        and projected_pairs.offer_key = baseline.offer_key
    left join projected_amounts
        on projected_amounts.entity_id = baseline.entity_id
        and projected_amounts.offer_key = baseline.offer_key
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
