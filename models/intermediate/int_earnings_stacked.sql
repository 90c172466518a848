-- materialized as a view: potential_earnings computes and writes the earning rows once. Spark
-- keeps a view's text in its metastore, whose column for it holds 32,700 characters (Derby), and
-- the exact quotients of this model are longer there: a table on Spark.
{{ config(materialized='table' if target.type in ('spark', 'databricks') else 'view') }}

-- Stacked offers: set coverage = the participant's net coverage units (quantity / conversion
-- rate, only where the uom is the conversion's `from`); a stack's overlap = the smallest set
-- coverage (0 if any <= 0). Each paying transaction of a set in a stack with overlap earns
-- coverage x rate x overlap / set coverage. The rows carry coverage, overlap and set coverage, so
-- every derived column is one exact quotient (divide last): incentivized quantity and amount are
-- q x overlap / set coverage and value x overlap / set coverage, the contribution (overlap / set
-- coverage) is only reported.
with qualified as (
    select * from {{ ref('int_offer_status') }}
    where strategy_key = 'stacked'  -- every evaluated pair: potential_earnings keeps the qualified ones
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
    {{ incentives._stacked_set_transactions('qualified') }}
),

set_coverage as (
    {{ incentives._stacked_set_coverage() }}
),

stack_overlap as (
    {{ incentives._stacked_overlap('qualified') }}
),

contributions as (
    select
        set_transactions.*,
        stacks.stack_key,
        stack_overlap.overlap,
        set_coverage.set_coverage
    from set_transactions
    inner join stacks
        on stacks.offer_key = set_transactions.offer_key
        and stacks.set_key = set_transactions.set_key
    inner join stack_overlap
        on stack_overlap.entity_id = set_transactions.entity_id
        and stack_overlap.offer_key = set_transactions.offer_key
        and stack_overlap.stack_key = stacks.stack_key
    inner join set_coverage
        on set_coverage.entity_id = set_transactions.entity_id
        and set_coverage.offer_key = set_transactions.offer_key
        and set_coverage.set_key = set_transactions.set_key
    where stack_overlap.overlap > 0 and set_transactions.rate > 0
),

final as (
    select
        entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
        stack_key as incentive_rate_key, measure as incentive_rate_measure, rate, transaction_id,
        quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
        {{ incentives.multiply_divide('quantity', '1', 'overlap', 'set_coverage', 10) }} as quantity,
        {{ incentives.multiply_divide('value', '1', 'overlap', 'set_coverage', 10) }} as value,
        cast(null as {{ incentives.type_measure() }}) as share_total,
        {{ incentives.cast_measure('coverage') }} as coverage,
        {{ incentives.cast_measure('overlap') }} as overlap,
        {{ incentives.cast_measure('set_coverage') }} as set_coverage
    from contributions
)

select * from final
