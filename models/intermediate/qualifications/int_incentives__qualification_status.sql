-- a view: two models read it, and rewriting every measure row (21.6M rows without enrollments at
-- 1M transactions) to add one flag costs more than joining the few waivers twice
{{ config(materialized='view') }}

-- Qualification measures with their waiver: `waived` when a waiver names the program, the
-- qualification key, the same level (empty offer_key = program level, else that offer) and this
-- participant or every participant.
with measures as (
    select * from {{ ref('incentives', 'int_incentives__qualification_measures') }}
),

waivers as (
    select * from {{ ref('incentives', 'int_incentives__evaluated_waivers') }}
),

-- the waivers are split by whom they name and made distinct, so each measure row probes two small
-- tables once: no join of the measures with themselves (DuckDB would materialize every measure
-- row to read them twice)
waivers_for_all as (
    select distinct program_key, qualification_key, coalesce(offer_key, '') as offer_key
    from waivers
    where entity_id is null
),

waivers_for_participant as (
    select distinct program_key, qualification_key, coalesce(offer_key, '') as offer_key, entity_id
    from waivers
    where entity_id is not null
),

final as (
    select
        measures.*,
        for_all.program_key is not null or for_participant.program_key is not null as waived
    from measures
    left join waivers_for_all as for_all
        on for_all.program_key = measures.program_key
        and for_all.qualification_key = measures.qualification_key
        and for_all.offer_key = coalesce(measures.offer_key, '')
    left join waivers_for_participant as for_participant
        on for_participant.program_key = measures.program_key
        and for_participant.qualification_key = measures.qualification_key
        and for_participant.offer_key = coalesce(measures.offer_key, '')
        and for_participant.entity_id = measures.entity_id
)

select * from final
