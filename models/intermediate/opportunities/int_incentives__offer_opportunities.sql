-- A view: offer_results, its one reader, writes these rows once (a table on Spark:
-- long_query_materialization, macros/materializations.sql).
{{ config(materialized=incentives.long_query_materialization()) }}

-- Per participant x offer (every evaluated pair, qualified or not), what offer_results says of
-- the pair: its qualifiers (int_incentives__offer_status), what it earns (the sum of its rows in
-- int_incentives__earnings, potential_earnings' rows), a stepped offer's tiers
-- (int_incentives__stepped_thresholds), a stacked offer's overlap (int_incentives__stack_coverage),
-- what the offer would pay on the current transactions if its qualifiers were true (waivers and
-- thresholds as they are), what a stepped offer would pay at its next tier and the uplift, and
-- the qualification keys that block the program's and the offer's qualifiers.
-- The earning rows: int_incentives__earnings holds the qualified pairs' (written once); the other
-- pairs' rows - every unqualified pair's, and a qualified stepped offer's earning transactions
-- below its lowest tier (null rate) - are computed here by the same strategies' queries
-- (macros/strategies/) and calculators (_calculated_earning_rows) and summed without being
-- written. No pair's rows are computed twice.
with offer_status as (
    select * from {{ ref('incentives', 'int_incentives__offer_status') }}
),

earned_rows as (
    select * from {{ ref('incentives', 'int_incentives__earnings') }}
),

stepped as (
    select * from {{ ref('incentives', 'int_incentives__stepped_thresholds') }}
),

thresholds as (
    select * from stepped
    where next_tier_key is not null
),

blocking as (
    select * from {{ ref('incentives', 'int_incentives__qualifier_blocking') }}
),

stack_coverage as (
    select * from {{ ref('incentives', 'int_incentives__stack_coverage') }}
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

-- the pairs whose earning rows int_incentives__earnings does not hold: the unqualified pairs, and a
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

earnings as (
    {%- for rows in ['earned_rows', 'opportunity_rows'] %}
    {%- if not loop.first %}
    union all
    {%- endif %}
    select
        entity_id, offer_key, strategy_key, offer_calculator, incentivized_quantity,
        incentivized_amount, incentive_amount, {{ 'true' if rows == 'earned_rows' else 'false' }} as earned
    from {{ rows }}
    {%- endfor %}
),

earnings_at_next_tier as (
    -- each earning row, and a stepped offer's row as its calculator would price it at the next
    -- tier's rate (`rate`, `quantity`, `value`: the columns the calculators read)
    select
        earnings.entity_id,
        earnings.offer_key,
        earnings.offer_calculator,
        earnings.earned,
        earnings.incentive_amount,
        thresholds.entity_id is not null as at_next_tier,
        thresholds.next_tier_rate as rate,
        earnings.incentivized_quantity as quantity,
        earnings.incentivized_amount as value
    from earnings
    left join thresholds
        on thresholds.entity_id = earnings.entity_id
        and thresholds.offer_key = earnings.offer_key
        and earnings.strategy_key = 'stepped'
),

earned as (
    -- one pass over the earning rows: what the offer pays (int_incentives__earnings' rows), what it
    -- would pay if qualified (all of them: a qualified pair's other rows have no rate), and a
    -- stepped offer's transactions priced at the next tier's rate by the calculator, each
    -- rounded to cents as int_incentives__earnings would (percent_of_amount, dollars_per_unit; a
    -- fixed_amount tier's dollar total is not a row's price: joined, below)
    select
        entity_id,
        offer_key,
        sum(case when earned then incentive_amount end) as incentive_amount,
        sum(incentive_amount) as potential_if_qualified,
        count(case when at_next_tier then 1 end) as next_tier_rows,
        sum(case when at_next_tier then {{ incentives.calculate('incentive', ['percent_of_amount', 'dollars_per_unit']) }} end)
            as next_tier_row_amount
    from earnings_at_next_tier
    group by entity_id, offer_key
),

joined as (
    select
        offer_status.entity_id,
        offer_status.program_key,
        offer_status.offer_key,
        offer_status.program_qualified,
        offer_status.offer_qualified,
        offer_status.qualified,
        potential.incentive_amount,
        stepped.threshold_value,
        stepped.current_tier_key,
        stepped.next_tier_key,
        stepped.next_tier_threshold,
        stepped.next_tier_rate,
        stepped.gap_to_next_tier,
        stacked.stacked_overlap,
        potential.potential_if_qualified,
        -- fixed_amount: the next tier's dollar total when there is anything to share it over (the
        -- earning rows of a fixed_amount offer exist only when their values sum to more than 0)
        case
            when stepped.next_tier_key is null then null
            when offer_status.calculator_key = 'fixed_amount' then
                case when coalesce(potential.next_tier_rows, 0) = 0 then 0 else stepped.next_tier_rate end
            else coalesce(potential.next_tier_row_amount, 0)
        end as next_tier_incentive_amount,
        program_blocking.blocking_qualifications as blocking_program_qualifications,
        offer_blocking.blocking_qualifications as blocking_offer_qualifications
    from offer_status
    left join stepped
        on stepped.entity_id = offer_status.entity_id
        and stepped.offer_key = offer_status.offer_key
    left join stacked
        on stacked.entity_id = offer_status.entity_id
        and stacked.offer_key = offer_status.offer_key
    left join earned as potential
        on potential.entity_id = offer_status.entity_id
        and potential.offer_key = offer_status.offer_key
    left join blocking as program_blocking
        on program_blocking.entity_id = offer_status.entity_id
        and program_blocking.program_key = offer_status.program_key
        and program_blocking.qualifier_level = 'program'
    left join blocking as offer_blocking
        on offer_blocking.entity_id = offer_status.entity_id
        and offer_blocking.program_key = offer_status.program_key
        and offer_blocking.offer_key = offer_status.offer_key
),

final as (
    select
        entity_id,
        program_key,
        offer_key,
        program_qualified,
        offer_qualified,
        qualified,
        {{ incentives.cast_money('coalesce(incentive_amount, 0)') }} as incentive_amount,
        threshold_value,
        current_tier_key,
        next_tier_key,
        next_tier_threshold,
        next_tier_rate,
        gap_to_next_tier,
        stacked_overlap,
        {{ incentives.cast_money('coalesce(potential_if_qualified, 0)') }} as potential_if_qualified,
        {{ incentives.cast_money('next_tier_incentive_amount') }} as next_tier_incentive_amount,
        {{ incentives.cast_money('next_tier_incentive_amount - coalesce(potential_if_qualified, 0)') }}
            as next_tier_uplift,
        blocking_program_qualifications,
        blocking_offer_qualifications
    from joined
)

select * from final
