{{ config(materialized='ephemeral') }}

-- Which transactions any rule can read, so that int_incentives__transactions keeps only those (a
-- warehouse's transactions are mostly other manufacturers' SKUs, which no program of the
-- participant names): one row per (participant, SKU) scope, a null meaning "any". What each
-- program reads: int_incentives__program_skus.
-- With enrollments, each evaluated participant's SKUs of its programs (entity_id, sku_key), or
-- (entity_id, null) when one of its programs has an any-SKU key; without enrollments every
-- participant is evaluated for every program, so the scope is the catalogue's SKUs (null,
-- sku_key), or (null, null) when a program has an any-SKU key.
with evaluations as (
    select * from {{ ref('incentives', 'int_incentives__evaluations') }}
),

enrollments as (
    select * from {{ ref('incentives', 'int_incentives__evaluated_enrollments') }}
),

program_skus as (
    select * from {{ ref('incentives', 'int_incentives__program_skus') }}
),

enrollment_mode as (
    select count(*) > 0 as enrolled_only from enrollments
),

enrolled_scope as (
    select distinct evaluations.entity_id, program_skus.sku_key
    from enrollment_mode
    cross join evaluations
    inner join program_skus on program_skus.program_key = evaluations.program_key
    where enrollment_mode.enrolled_only
),

catalogue_scope as (
    select distinct cast(null as {{ dbt.type_string() }}) as entity_id, program_skus.sku_key
    from enrollment_mode
    cross join program_skus
    where not enrollment_mode.enrolled_only
),

final as (
    select entity_id, sku_key from enrolled_scope
    union all
    select entity_id, sku_key from catalogue_scope
)

select * from final
