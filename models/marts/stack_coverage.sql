-- Stacked offers, for BI: one row per participant x stacked offer x stack x SKU set (every
-- evaluated participant, qualified or not) with the set's coverage units and the stack's overlap
-- (the coverage that earns); computed in int_incentives__stack_coverage, which offer_results reads too.
with stack_coverage as (
    select * from {{ ref('incentives', 'int_incentives__stack_coverage') }}
),

final as (
    select
        entity_id,
        program_key,
        offer_key,
        stack_key,
        set_key,
        set_coverage,
        overlap,
        {{ incentives.run_id() }} as run_id
    from stack_coverage
    -- an actual participant's rows (docs/scenarios.md)
    where {{ incentives._actual_participant('entity_id', ref('incentives', 'int_incentives__scenario_participants')) }}
)

select * from final
