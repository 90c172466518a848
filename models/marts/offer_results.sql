-- One row per participant x offer: the program qualifier, the offer's own qualifier, both, the
-- sum of the offer's earnings (0 when none), a stepped offer's tiers, a stacked offer's overlap
-- and what is still on the table: int_incentives__offer_opportunities' columns in the contract's order, with
-- the run.
with pairs as (
    -- every evaluated pair with its qualifiers, earnings, tiers and what is still on the table
    select * from {{ ref('incentives', 'int_incentives__offer_opportunities') }}
),

final as (
    select
        pairs.entity_id,
        pairs.program_key,
        pairs.offer_key,
        pairs.program_qualified,
        pairs.offer_qualified,
        pairs.qualified,
        pairs.incentive_amount,
        pairs.threshold_value,
        pairs.current_tier_key,
        pairs.next_tier_key,
        pairs.next_tier_threshold,
        pairs.next_tier_rate,
        pairs.gap_to_next_tier,
        pairs.stacked_overlap,
        pairs.potential_if_qualified,
        pairs.next_tier_incentive_amount,
        pairs.next_tier_uplift,
        pairs.blocking_program_qualifications,
        pairs.blocking_offer_qualifications,
        {{ incentives.run_id() }} as run_id
    from pairs
)

select * from final
