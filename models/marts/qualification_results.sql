-- One row per participant x offer x qualification; program-level qualifications are repeated
-- on every offer of their program, whether or not the program qualified.
with status as (
    select * from {{ ref('incentives', 'int_incentives__qualification_status') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

final as (
    -- one pass over the statuses: a program-level row meets every offer of its program, an
    -- offer-level row keeps its own offer (reading the statuses twice would make DuckDB
    -- materialize them)
    select
        status.entity_id,
        status.program_key,
        coalesce(offers.offer_key, status.offer_key) as offer_key,
        status.qualification_key,
        status.qualification_level,
        status.qualification_type,
        status.operator,
        status.target,
        status.actual,
        status.difference,
        status.met,
        status.waived,
        {{ incentives.run_id() }} as run_id
    from status
    left join offers
        on status.qualification_level = 'program'
        and offers.program_key = status.program_key
    where (status.qualification_level = 'offer' or offers.offer_key is not null)
        -- an actual participant's rows (docs/scenarios.md)
        and {{ incentives._actual_participant('status.entity_id', ref('incentives', 'int_incentives__scenario_participants')) }}
)

select * from final
