-- Stacked offers, computed once: one row per participant x stacked offer x stack x SKU set (every
-- evaluated participant, qualified or not) with the set's coverage units and the stack's overlap
-- (the smallest coverage among its sets, 0 if any is <= 0 or absent: the units that earn).
-- Coverage is exact (docs/semantics.md, "Stacked coverage"): a set covers
-- set_weighted_quantity / set_conversion_rate units (the net sum of quantity x coverage_weight,
-- only where the uom is the conversion's `from`), and the overlap is the smallest set's
-- overlap_weighted_quantity / overlap_conversion_rate; the reported set_coverage and overlap
-- are those quotients rounded once to 10 places. A set beyond the bounds of exact coverage fails
-- the build with a message naming the offer, the set and the participant (an offer whose rates
-- have no common denominator within the bounds is refused when compiled). Read by
-- int_incentives__earnings_stacked (the qualified pairs' earning rows), the mart stack_coverage (which adds
-- the run_id) and int_incentives__offer_opportunities (the overlap per offer, and the unqualified pairs'
-- earning rows).
with evaluated as (
    select * from {{ ref('incentives', 'int_incentives__offer_status') }}
    where strategy_key = 'stacked'
),

set_skus as (
    select * from {{ ref('incentives', 'stg_incentives__rules_stacked_set_skus') }}
),

stacks as (
    select * from {{ ref('incentives', 'stg_incentives__rules_stacked_stacks') }}
),

transactions as (
    select * from {{ ref('incentives', 'int_incentives__transactions') }}
),

set_transactions as (
    {{ incentives._stacked_set_transactions('evaluated', 'set_skus', 'transactions') }}
),

set_totals as (
    -- the participant's net weighted quantity per set, and what the bounds of exactness read
    select
        entity_id,
        offer_key,
        set_key,
        sum(weighted_quantity) as set_weighted_quantity,
        sum(abs(quantity)) as set_absolute_quantity,
        sum(abs(weighted_quantity)) as set_absolute_weighted_quantity,
        max(abs(value)) as set_largest_value
    from set_transactions
    group by entity_id, offer_key, set_key
),

set_scales as (
    -- a set's common conversion rate and its multiplier to the offer's common denominator
    select
        offer_key,
        set_key,
        max(set_conversion_rate) as set_conversion_rate,
        max(offer_coverage_multiplier) as offer_coverage_multiplier,
        max(rate) as largest_rate
    from set_skus
    group by offer_key, set_key
),

stack_sets as (
    select
        evaluated.entity_id,
        evaluated.program_key,
        stacks.offer_key,
        stacks.stack_key,
        stacks.set_key,
        set_scales.set_conversion_rate,
        set_scales.set_conversion_rate * set_scales.offer_coverage_multiplier as offer_coverage_denominator,
        coalesce(set_totals.set_weighted_quantity, 0) as set_weighted_quantity,
        -- the set's coverage x the offer's common denominator: an exact decimal that orders the sets
        coalesce(set_totals.set_weighted_quantity, 0) * set_scales.offer_coverage_multiplier as set_scaled_coverage,
        case
            when set_totals.set_absolute_quantity >= 10000000
                then 'quantities of absolute sum ' || cast(set_totals.set_absolute_quantity as {{ dbt.type_string() }})
            when set_totals.set_largest_value >= 1000000000
                then 'a transaction of value ' || cast(set_totals.set_largest_value as {{ dbt.type_string() }})
            when set_totals.set_absolute_weighted_quantity >= 1000000000000 * set_scales.set_conversion_rate
                then 'coverage of absolute sum ' || cast(
                    {{ incentives.quotient_of_products([['set_totals.set_absolute_weighted_quantity', 4]], [],
                                                       [['set_scales.set_conversion_rate', 10]], 0) }}
                    as {{ dbt.type_string() }}) || ' units'
            when set_totals.set_absolute_weighted_quantity * set_scales.largest_rate >= 10000000000 * set_scales.set_conversion_rate
                then 'coverage worth up to ' || cast(
                    {{ incentives.quotient_of_products([['set_totals.set_absolute_weighted_quantity', 4], ['set_scales.largest_rate', 10]], [],
                                                       [['set_scales.set_conversion_rate', 10]], 0) }}
                    as {{ dbt.type_string() }}) || ' dollars'
        end as beyond_exact_bounds
    from stacks
    inner join evaluated on evaluated.offer_key = stacks.offer_key
    inner join set_scales
        on set_scales.offer_key = stacks.offer_key
        and set_scales.set_key = stacks.set_key
    left join set_totals
        on set_totals.entity_id = evaluated.entity_id
        and set_totals.offer_key = stacks.offer_key
        and set_totals.set_key = stacks.set_key
),

ranked_sets as (
    select
        stack_sets.*,
        row_number() over (
            partition by entity_id, offer_key, stack_key
            order by set_scaled_coverage, set_key
        ) as coverage_rank
    from stack_sets
),

stack_overlap as (
    -- the stack's smallest set: its coverage is the overlap when it is > 0
    select
        entity_id,
        offer_key,
        stack_key,
        case when set_scaled_coverage > 0 then set_weighted_quantity else 0 end as overlap_weighted_quantity,
        set_conversion_rate as overlap_conversion_rate,
        case when set_scaled_coverage > 0 then set_scaled_coverage else 0 end as overlap_scaled_coverage
    from ranked_sets
    where coverage_rank = 1
),

final as (
    select
        stack_sets.entity_id,
        stack_sets.program_key,
        stack_sets.offer_key,
        stack_sets.stack_key,
        stack_sets.set_key,
        cast(case when stack_sets.beyond_exact_bounds is not null
            then {{ incentives.raise_error("'stacked offer ' || stack_sets.offer_key || ', set ' || stack_sets.set_key
                                            || ', participant ' || stack_sets.entity_id
                                            || ': beyond the bounds of exact coverage (docs/semantics.md, Stacked coverage); got '
                                            || stack_sets.beyond_exact_bounds
                                            || '; expected quantities of absolute sum below 10000000, values below 1000000000, '
                                            || 'coverage below 10^12 units and worth below 10^10 dollars'") }}
            else {{ incentives.quotient_of_products([['stack_sets.set_weighted_quantity', 4]], [],
                                                    [['stack_sets.set_conversion_rate', 10]], 10) }}
        end as {{ incentives.type_measure() }}) as set_coverage,
        cast({{ incentives.quotient_of_products([['stack_overlap.overlap_weighted_quantity', 4]], [],
                                                [['stack_overlap.overlap_conversion_rate', 10]], 10) }}
            as {{ incentives.type_measure() }}) as overlap,
        stack_sets.set_weighted_quantity,
        stack_sets.set_conversion_rate,
        stack_overlap.overlap_weighted_quantity,
        stack_overlap.overlap_conversion_rate,
        stack_overlap.overlap_scaled_coverage,
        cast(stack_sets.offer_coverage_denominator as decimal(38,0)) as offer_coverage_denominator
    from stack_sets
    inner join stack_overlap
        on stack_overlap.entity_id = stack_sets.entity_id
        and stack_overlap.offer_key = stack_sets.offer_key
        and stack_overlap.stack_key = stack_sets.stack_key
)

select * from final
