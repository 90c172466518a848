-- Stacked offers, computed once: one row per participant x stacked offer x stack x SKU set (every
-- evaluated participant, qualified or not) with the set's coverage units (the participant's net
-- quantity / conversion rate, only where the uom is the conversion's `from`) and the stack's
-- overlap (the smallest coverage among its sets, 0 if any is <= 0 or absent: the units that
-- earn). Read by int_incentives__earnings_stacked (the qualified pairs' earning rows), the mart
-- stack_coverage (which adds the run_id) and int_incentives__offer_opportunities (the overlap per offer, and
-- the unqualified pairs' earning rows).
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

set_coverage as (
    -- the participant's net coverage per set
    select entity_id, offer_key, set_key, sum(coverage) as set_coverage
    from set_transactions
    group by entity_id, offer_key, set_key
),

stack_overlap as (
    select
        evaluated.entity_id,
        stacks.offer_key,
        stacks.stack_key,
        case when min(coalesce(set_coverage.set_coverage, 0)) > 0
             then min(set_coverage.set_coverage) else 0 end as overlap
    from stacks
    inner join evaluated on evaluated.offer_key = stacks.offer_key
    left join set_coverage
        on set_coverage.entity_id = evaluated.entity_id
        and set_coverage.offer_key = stacks.offer_key
        and set_coverage.set_key = stacks.set_key
    group by evaluated.entity_id, stacks.offer_key, stacks.stack_key
),

final as (
    select
        evaluated.entity_id,
        evaluated.program_key,
        evaluated.offer_key,
        stacks.stack_key,
        stacks.set_key,
        {{ incentives.cast_measure('coalesce(set_coverage.set_coverage, 0)') }} as set_coverage,
        {{ incentives.cast_measure('stack_overlap.overlap') }} as overlap
    from evaluated
    inner join stacks on stacks.offer_key = evaluated.offer_key
    inner join stack_overlap
        on stack_overlap.entity_id = evaluated.entity_id
        and stack_overlap.offer_key = evaluated.offer_key
        and stack_overlap.stack_key = stacks.stack_key
    left join set_coverage
        on set_coverage.entity_id = evaluated.entity_id
        and set_coverage.offer_key = evaluated.offer_key
        and set_coverage.set_key = stacks.set_key
)

select * from final
