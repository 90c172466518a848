-- One row per participant x offer: the program qualifier, the offer's own qualifier, both, and
-- the sum of the offer's earnings (0 when none).
with earnings as (
    select * from {{ ref('potential_earnings') }}
),

pairs as (
    -- every evaluated pair with its qualifiers, tiers and what is still on the table
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
        pairs.entity_id,
        pairs.program_key,
        pairs.offer_key,
        pairs.program_qualified,
        pairs.offer_qualified,
        pairs.qualified,
        {{ incentives.cast_money('coalesce(earned.incentive_amount, 0)') }} as incentive_amount,
        pairs.threshold_value,
        pairs.current_tier_key,
        pairs.next_tier_key,
        pairs.next_tier_threshold,
        pairs.next_tier_rate,
        pairs.gap_to_next_tier,
        stacked.stacked_overlap,
        pairs.potential_if_qualified,
        pairs.next_tier_incentive_amount,
        pairs.next_tier_uplift,
        pairs.blocking_program_qualifications,
        pairs.blocking_offer_qualifications,
        {{ incentives.run_id() }} as run_id
    from pairs
    left join earned
        on earned.entity_id = pairs.entity_id
        and earned.offer_key = pairs.offer_key
    left join stacked
        on stacked.entity_id = pairs.entity_id
        and stacked.offer_key = pairs.offer_key
)

select * from final
