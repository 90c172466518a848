-- Stacked offers: one row per participant x stacked offer x stack x SKU set (every evaluated
-- participant, qualified or not) with the set's coverage units and the stack's overlap (the
-- coverage that earns). Read by the mart stack_coverage (which adds the run_id) and by
-- offer_results (the overlap per stack).
with evaluated as (
    select * from {{ ref('int_offer_status') }}
    where strategy_key = 'stacked'
),

set_skus as (
    select * from {{ ref('stg_rules__stacked_set_skus') }}
),

stacks as (
    select * from {{ ref('stg_rules__stacked_stacks') }}
),

transactions as (
    select * from {{ ref('int_transactions') }}
),

set_transactions as (
    {{ incentives._stacked_set_transactions('evaluated') }}
),

set_coverage as (
    {{ incentives._stacked_set_coverage() }}
),

stack_overlap as (
    {{ incentives._stacked_overlap('evaluated') }}
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
