-- One row per participant x offer: the program qualifier, the offer's own qualifier, both, the
-- sum of the offer's earnings (0 when none), a stepped offer's tiers, a stacked offer's overlap
-- and what is still on the table, with the run. The earning rows are summed in two parts by one
-- macro (_earning_sums, macros/opportunities/): the qualified pairs' rows of potential_earnings
-- here (what the offer pays), the other rows (the pairs potential_earnings does not hold) in
-- int_incentives__offer_opportunities; this model adds the two.
with participant_numbers as (
    select * from {{ ref('incentives', 'int_incentives__participant_numbers') }}
),

offer_numbers as (
    select * from {{ ref('incentives', 'int_incentives__offer_numbers') }}
),

pairs as (
    -- every evaluated pair with its qualifiers, tiers, overlap, blocking keys and the sums of the
    -- earning rows potential_earnings does not hold
    select * from {{ ref('incentives', 'int_incentives__offer_opportunities') }}
    -- an actual participant's pairs (a scenario participant's are scenario_results')
    where {{ incentives._actual_participant('entity_id', ref('incentives', 'int_incentives__scenario_participants')) }}
),

earned as (
    -- per pair, the sums of potential_earnings' rows: what the offer pays, and a stepped offer's
    -- rows at the next tier's rate
    {{ incentives._earning_sums(ref('incentives', 'potential_earnings'), ref('incentives', 'int_incentives__stepped_thresholds')) }}
),

numbered_earned as (
    -- keyed by the pair's integer, as the pairs are (int_incentives__offer_opportunities)
    {{ incentives._pair_numbered('earned', 'participant_numbers', 'offer_numbers', 'offer',
                                 ['incentive_amount', 'next_tier_rows', 'next_tier_row_amount']) }}
),

joined as (
    select
        pairs.*,
        coalesce(earned.incentive_amount, 0) as earned_incentive_amount,
        -- what the offer would pay if qualified: all its rows (a qualified pair's other rows have
        -- no rate, an unqualified pair has no earned row)
        coalesce(earned.incentive_amount, 0) + pairs.opportunity_incentive_amount as potential_if_qualified,
        -- fixed_amount: the next tier's dollar total when there is anything to share it over (the
        -- earning rows of a fixed_amount offer exist only when their values sum to more than 0)
        case
            when pairs.next_tier_key is null then null
            when pairs.calculator_key = 'fixed_amount' then
                case when coalesce(earned.next_tier_rows, 0) + pairs.opportunity_next_tier_rows = 0 then 0
                    else pairs.next_tier_rate end
            else coalesce(earned.next_tier_row_amount, 0) + pairs.opportunity_next_tier_row_amount
        end as next_tier_incentive_amount
    from pairs
    left join numbered_earned as earned
        on earned.offer_pair = pairs.offer_pair
),

final as (
    select
        entity_id,
        program_key,
        offer_key,
        program_qualified,
        offer_qualified,
        qualified,
        {{ incentives.cast_money('earned_incentive_amount') }} as incentive_amount,
        threshold_value,
        current_tier_key,
        next_tier_key,
        next_tier_threshold,
        next_tier_rate,
        gap_to_next_tier,
        stacked_overlap,
        {{ incentives.cast_money('potential_if_qualified') }} as potential_if_qualified,
        {{ incentives.cast_money('next_tier_incentive_amount') }} as next_tier_incentive_amount,
        {{ incentives.cast_money('next_tier_incentive_amount - potential_if_qualified') }} as next_tier_uplift,
        blocking_program_qualifications,
        blocking_offer_qualifications,
        {{ incentives.run_id() }} as run_id
    from joined
)

select * from final
