-- materialized as a view: potential_earnings computes and writes the earning rows once. Spark
-- keeps a view's text in its metastore, whose column for it holds 32,700 characters (Derby), and
-- the exact quotients of this model are longer there: a table on Spark.
{{ config(materialized='table' if target.type in ('spark', 'databricks') else 'view') }}

-- Stacked offers: each paying transaction of a set in a stack with overlap > 0 earns
-- coverage x rate x overlap / set coverage. Coverage and overlap are computed once, in
-- int_stack_coverage; here every evaluated pair's set transactions meet them. The rows carry
-- coverage, overlap and set coverage, so every derived column is one exact quotient (divide last):
-- incentivized quantity and amount are q x overlap / set coverage and value x overlap / set
-- coverage, the contribution (overlap / set coverage) is only reported.
with evaluated as (
    select * from {{ ref('int_offer_status') }}
    where strategy_key = 'stacked'  -- every evaluated pair: potential_earnings keeps the qualified ones
),

set_skus as (
    select * from {{ ref('stg_rules__stacked_set_skus') }}
),

transactions as (
    select * from {{ ref('int_transactions') }}
),

stack_coverage as (
    select * from {{ ref('int_stack_coverage') }}
),

set_transactions as (
    {{ incentives._stacked_set_transactions('evaluated', 'set_skus', 'transactions') }}
),

contributions as (
    -- one row per stack the transaction's set is in
    select
        set_transactions.*,
        stack_coverage.stack_key,
        stack_coverage.overlap,
        stack_coverage.set_coverage
    from set_transactions
    inner join stack_coverage
        on stack_coverage.entity_id = set_transactions.entity_id
        and stack_coverage.offer_key = set_transactions.offer_key
        and stack_coverage.set_key = set_transactions.set_key
    where stack_coverage.overlap > 0 and set_transactions.rate > 0
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
        {{ incentives.cast_measure('set_coverage') }} as set_coverage,
        qualified
    from contributions
)

select * from final
