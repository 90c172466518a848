-- A view: offer_results, its one reader, writes these rows once (a table on Spark:
-- long_query_materialization, macros/materializations.sql).
{{ config(materialized=incentives.long_query_materialization()) }}

-- Per participant x offer (every evaluated pair, qualified or not), what offer_results says of
-- the pair besides its earned rows: its qualifiers (int_incentives__offer_status), a stepped
-- offer's tiers (int_incentives__stepped_thresholds), a stacked offer's overlap
-- (int_incentives__stack_coverage), the qualification keys that block the program's and the
-- offer's qualifiers, and the partial sums of the earning rows computed here. The earning rows
-- of the qualified pairs are potential_earnings' (written once, by the mart); this model computes
-- the other pairs' rows - every unqualified pair's, and a qualified stepped offer's earning
-- transactions below its lowest tier (null rate) - by the same strategies' queries
-- (macros/strategies/) and calculators (_calculated_earning_rows) and sums them without writing
-- them (_earning_sums). offer_results sums potential_earnings' rows by the same macro and adds
-- the two. No pair's rows are computed twice, and no intermediate model reads a mart.
with offer_status as (
    select * from {{ ref('incentives', 'int_incentives__offer_status') }}
),

stepped as (
    select * from {{ ref('incentives', 'int_incentives__stepped_thresholds') }}
),

blocking as (
    select * from {{ ref('incentives', 'int_incentives__qualifier_blocking') }}
),

stack_coverage as (
    select * from {{ ref('incentives', 'int_incentives__stack_coverage') }}
),

participant_numbers as (
    select * from {{ ref('incentives', 'int_incentives__participant_numbers') }}
),

offer_numbers as (
    select * from {{ ref('incentives', 'int_incentives__offer_numbers') }}
),

stacked as (
    -- a stacked offer's overlap: the sum over its stacks, exact over the offer's common
    -- denominator and rounded once
    select
        entity_id,
        offer_key,
        case when max(offer_coverage_denominator) = 0 then {{ incentives.cast_measure('sum(overlap_scaled_coverage)') }}
            else {{ incentives.quotient_of_products([['sum(overlap_scaled_coverage)', 4]], [], [['max(offer_coverage_denominator)', 0]], 10) }}
        end as stacked_overlap
    from (
        select distinct entity_id, offer_key, stack_key, overlap_scaled_coverage, offer_coverage_denominator
        from stack_coverage
    ) as stacks
    group by entity_id, offer_key
),

-- the pairs whose earning rows potential_earnings does not hold: the unqualified pairs, and a
-- qualified stepped offer below its lowest tier. Each strategy's set is written as a plain filter
-- (a union for stepped), not as one filtered CTE: DuckDB then estimates their size well and
-- builds its semi joins' hash tables on the participants' SKUs (docs/performance.md).
standard_pairs as (
    select * from offer_status where strategy_key = 'standard' and not qualified
),

stacked_pairs as (
    select * from offer_status where strategy_key = 'stacked' and not qualified
),

stepped_pairs as (
    select * from offer_status where strategy_key = 'stepped' and not qualified
    union all
    select offer_status.*
    from offer_status
    inner join stepped
        on stepped.entity_id = offer_status.entity_id
        and stepped.offer_key = offer_status.offer_key
    where offer_status.strategy_key = 'stepped' and offer_status.qualified
        and stepped.current_tier_key is null and stepped.next_tier_key is not null
),

opportunity_earning_rows as (
    select * from (
        {{ incentives._standard_earning_rows('standard_pairs', ref('incentives', 'stg_incentives__rules_standard_rates'),
                                             ref('incentives', 'int_incentives__transaction_buckets'), ref('incentives', 'int_incentives__transactions')) }}
    ) as standard_rows
    union all
    select * from (
        {{ incentives._stepped_earning_rows('stepped_pairs', ref('incentives', 'stg_incentives__rules_offers'), ref('incentives', 'stg_incentives__rules_stepped_tiers'),
                                            ref('incentives', 'stg_incentives__rules_filter_keys'), ref('incentives', 'int_incentives__transaction_buckets'),
                                            ref('incentives', 'int_incentives__stepped_thresholds'), ref('incentives', 'stg_incentives__properties'),
                                            ref('incentives', 'int_incentives__transactions')) }}
    ) as stepped_rows
    union all
    select * from (
        {{ incentives._stacked_earning_rows('stacked_pairs', ref('incentives', 'stg_incentives__rules_stacked_set_skus'),
                                            ref('incentives', 'int_incentives__transactions'), ref('incentives', 'int_incentives__stack_coverage')) }}
    ) as stacked_rows
),

opportunity_rows as (
    {{ incentives._calculated_earning_rows('opportunity_earning_rows') }}
),

opportunity_sums as (
    -- per pair, the sums of the rows computed here: what they would pay if qualified, and a
    -- stepped offer's rows at the next tier's rate
    {{ incentives._earning_sums('opportunity_rows', ref('incentives', 'int_incentives__stepped_thresholds')) }}
),

-- the pairs and each part of a pair's row keyed by the pair's one integer (participant x offer or
-- program; _pair_numbered): the joins below meet every evaluated pair once each, and compare one
-- integer instead of two long text keys (without enrollments, 29.6M pairs at 1M transactions:
-- docs/performance.md)
numbered_status as (
    select
        offer_status.*,
        {{ incentives._pair_number('participant_numbers.participant_number', 'offer_numbers', 'offer') }} as offer_pair,
        {{ incentives._pair_number('participant_numbers.participant_number', 'offer_numbers', 'program') }} as program_pair
    from offer_status
    inner join participant_numbers on participant_numbers.entity_id = offer_status.entity_id
    inner join offer_numbers on offer_numbers.offer_key = offer_status.offer_key
),

numbered_stepped as (
    {{ incentives._pair_numbered('stepped', 'participant_numbers', 'offer_numbers', 'offer',
                                 ['threshold_value', 'current_tier_key', 'next_tier_key', 'next_tier_threshold',
                                  'next_tier_rate', 'gap_to_next_tier']) }}
),

numbered_stacked as (
    {{ incentives._pair_numbered('stacked', 'participant_numbers', 'offer_numbers', 'offer', ['stacked_overlap']) }}
),

numbered_sums as (
    {{ incentives._pair_numbered('opportunity_sums', 'participant_numbers', 'offer_numbers', 'offer',
                                 ['incentive_amount', 'next_tier_rows', 'next_tier_row_amount']) }}
),

program_blocking_keys as (
    select * from blocking where qualifier_level = 'program'
),

offer_blocking_keys as (
    select * from blocking where qualifier_level = 'offer'
),

numbered_program_blocking as (
    {{ incentives._pair_numbered('program_blocking_keys', 'participant_numbers', 'offer_numbers', 'program',
                                 ['blocking_qualifications']) }}
),

numbered_offer_blocking as (
    {{ incentives._pair_numbered('offer_blocking_keys', 'participant_numbers', 'offer_numbers', 'offer',
                                 ['blocking_qualifications']) }}
),

final as (
    select
        offer_status.entity_id,
        offer_status.program_key,
        offer_status.offer_key,
        offer_status.offer_pair,
        offer_status.calculator_key,
        offer_status.program_qualified,
        offer_status.offer_qualified,
        offer_status.qualified,
        stepped.threshold_value,
        stepped.current_tier_key,
        stepped.next_tier_key,
        stepped.next_tier_threshold,
        stepped.next_tier_rate,
        stepped.gap_to_next_tier,
        stacked.stacked_overlap,
        coalesce(opportunity_sums.incentive_amount, 0) as opportunity_incentive_amount,
        coalesce(opportunity_sums.next_tier_rows, 0) as opportunity_next_tier_rows,
        coalesce(opportunity_sums.next_tier_row_amount, 0) as opportunity_next_tier_row_amount,
        program_blocking.blocking_qualifications as blocking_program_qualifications,
        offer_blocking.blocking_qualifications as blocking_offer_qualifications
    from numbered_status as offer_status
    left join numbered_stepped as stepped
        on stepped.offer_pair = offer_status.offer_pair
    left join numbered_stacked as stacked
        on stacked.offer_pair = offer_status.offer_pair
    left join numbered_sums as opportunity_sums
        on opportunity_sums.offer_pair = offer_status.offer_pair
    left join numbered_program_blocking as program_blocking
        on program_blocking.program_pair = offer_status.program_pair
    left join numbered_offer_blocking as offer_blocking
        on offer_blocking.offer_pair = offer_status.offer_pair
)

select * from final
