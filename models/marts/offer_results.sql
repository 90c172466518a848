-- One row per participant x offer: the program qualifier, the offer's own qualifier, both, and
-- the sum of the offer's earnings (0 when none).
with offer_status as (
    select * from {{ ref('int_offer_status') }}
),

earnings as (
    select * from {{ ref('potential_earnings') }}
),

stepped as (
    select * from {{ ref('int_stepped_thresholds') }}
),

opportunities as (
    select * from {{ ref('int_offer_opportunities') }}
),

stack_coverage as (
    select * from {{ ref('int_stack_coverage') }}
),

stacked as (
    select entity_id, offer_key, sum(overlap) as stacked_overlap
    from (select distinct entity_id, offer_key, stack_key, overlap from stack_coverage) as stacks
    group by entity_id, offer_key
),

earned as (
    select entity_id, offer_key, sum(incentive_amount) as incentive_amount
    from earnings
    group by entity_id, offer_key
),

final as (
    select
        offer_status.entity_id,
        offer_status.program_key,
        offer_status.offer_key,
        offer_status.program_qualified,
        offer_status.offer_qualified,
        offer_status.qualified,
        {{ incentives.cast_money('coalesce(earned.incentive_amount, 0)') }} as incentive_amount,
        stepped.threshold_value,
        stepped.current_tier_key,
        stepped.next_tier_key,
        stepped.next_tier_threshold,
        stepped.next_tier_rate,
        stepped.gap_to_next_tier,
        stacked.stacked_overlap,
        opportunities.potential_if_qualified,
        opportunities.next_tier_incentive_amount,
        opportunities.next_tier_uplift,
        opportunities.blocking_program_qualifications,
        opportunities.blocking_offer_qualifications,
        {{ incentives.run_id() }} as run_id
    from offer_status
    left join earned
        on earned.entity_id = offer_status.entity_id
        and earned.offer_key = offer_status.offer_key
    left join stepped
        on stepped.entity_id = offer_status.entity_id
        and stepped.offer_key = offer_status.offer_key
    left join stacked
        on stacked.entity_id = offer_status.entity_id
        and stacked.offer_key = offer_status.offer_key
    left join opportunities
        on opportunities.entity_id = offer_status.entity_id
        and opportunities.offer_key = offer_status.offer_key
)

select * from final
