-- Every participant x program pair to evaluate: all pairs, or only enrolled ones when
-- enrollments has rows.
with transactions as (
    select * from {{ ref('incentives', 'int_incentives__evaluated_transactions') }}
),

properties as (
    select * from {{ ref('incentives', 'int_incentives__evaluated_properties') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

enrollments as (
    select * from {{ ref('incentives', 'int_incentives__evaluated_enrollments') }}
),

participants as (
    select entity_id from transactions where entity_id is not null
    union
    select entity_id from properties where level = 'entity' and entity_id is not null
),

programs as (
    select distinct program_key from offers
),

enrollment_mode as (
    select count(*) > 0 as enrolled_only from enrollments
),

all_pairs as (
    select participants.entity_id, programs.program_key
    from participants
    cross join programs
    cross join enrollment_mode
    where not enrollment_mode.enrolled_only
),

enrolled_pairs as (
    select distinct enrollments.entity_id, enrollments.program_key
    from enrollments
    inner join participants on participants.entity_id = enrollments.entity_id
    inner join programs on programs.program_key = enrollments.program_key
),

final as (
    select entity_id, program_key from all_pairs
    union all
    select entity_id, program_key from enrolled_pairs
)

select * from final
