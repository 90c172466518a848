{{ config(materialized='ephemeral') }}

-- A small integer per evaluated participant (int_incentives__evaluations), in entity_id order:
-- with int_incentives__offer_numbers, the key the per-pair joins of
-- int_incentives__offer_opportunities and offer_results compare instead of long text keys
-- (docs/performance.md). Ephemeral: a few thousand rows, computed where it is read.
with evaluations as (
    select * from {{ ref('incentives', 'int_incentives__evaluations') }}
),

participants as (
    select distinct entity_id from evaluations
),

final as (
    select
        entity_id,
        row_number() over (order by entity_id) as participant_number
    from participants
)

select * from final
