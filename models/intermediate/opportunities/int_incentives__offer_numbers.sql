{{ config(materialized='ephemeral') }}

-- A small integer per offer of the catalogue (offer_key is unique in it) and per program, in key
-- order, and how many there are: with int_incentives__participant_numbers, the one integer key of
-- a participant x offer (or program) pair that the per-pair joins of
-- int_incentives__offer_opportunities and offer_results compare instead of long text keys
-- (_pair_numbered; docs/performance.md). Ephemeral: one row per offer, computed where it is read.
with offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

numbered as (
    select
        program_key,
        offer_key,
        row_number() over (order by offer_key) as offer_number,
        dense_rank() over (order by program_key) as program_number
    from offers
),

final as (
    select
        program_key,
        offer_key,
        offer_number,
        program_number,
        max(offer_number) over () as offer_count,
        max(program_number) over () as program_count
    from numbered
)

select * from final
