-- One row per participant x offer x qualification; program-level qualifications are repeated
-- on every offer of their program, whether or not the program qualified.
with status as (
    select * from {{ ref('int_qualification_status') }}
),

offers as (
    select * from {{ ref('stg_rules__offers') }}
),

program_level as (
    select
        status.entity_id, status.program_key, offers.offer_key, status.qualification_key,
        status.qualification_level, status.qualification_type, status.operator,
        status.target, status.actual, status.difference, status.met, status.waived
    from status
    inner join offers on offers.program_key = status.program_key
    where status.qualification_level = 'program'
),

offer_level as (
    select
        entity_id, program_key, offer_key, qualification_key,
        qualification_level, qualification_type, operator,
        target, actual, difference, met, waived
    from status
    where qualification_level = 'offer'
),

unioned as (
    select * from program_level
    union all
    select * from offer_level
),

final as (
    select
        unioned.*,
        {{ incentives.run_id() }} as run_id
    from unioned
)

select * from final
