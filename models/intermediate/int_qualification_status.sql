-- a view: two models read it, and rewriting every measure row (21.6M rows without enrollments at
-- 1M transactions) to add one flag costs more than joining the few waivers twice
{{ config(materialized='view') }}

-- Qualification measures with their waiver: `waived` when a waiver names the program, the
-- qualification key, the same level (empty offer_key = program level, else that offer) and this
-- participant or every participant.
with measures as (
    select * from {{ ref('int_qualification_measures') }}
),

waivers as (
    select * from {{ ref('stg_waivers') }}
),

waived as (
    select distinct
        measures.entity_id,
        measures.qualification_id
    from measures
    inner join waivers
        on waivers.program_key = measures.program_key
        and waivers.qualification_key = measures.qualification_key
        and coalesce(waivers.offer_key, '') = coalesce(measures.offer_key, '')
    where waivers.entity_id is null or waivers.entity_id = measures.entity_id
),

final as (
    select
        measures.*,
        waived.qualification_id is not null as waived
    from measures
    left join waived
        on waived.entity_id = measures.entity_id
        and waived.qualification_id = measures.qualification_id
)

select * from final
