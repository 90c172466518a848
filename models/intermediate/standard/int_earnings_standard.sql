-- materialized as a view: potential_earnings computes and writes the earning rows once
{{ config(materialized='view') }}

-- Standard offers: each incentives[] entry pays the participant's transactions matching its
-- period, transaction type and a SKU of its rates. fixed_amount shares the entry x SKU total
-- over those transactions in proportion to value (nothing when they sum to 0 or less).
-- The transactions meet a narrow build side (participant, rate id, match keys); the rates' text
-- columns are joined to the matched rows afterwards from the small rates table.
with qualified as (
    select * from {{ ref('int_offer_status') }}
    where strategy_key = 'standard'  -- every evaluated pair: potential_earnings keeps the qualified ones
),

rate_rows as (
    select * from {{ ref('stg_rules__standard_rates') }}
),

bucket_rows as (
    select * from {{ ref('int_transaction_buckets') }}
),

transactions as (
    select * from {{ ref('int_transactions') }}
),

offer_calculators as (
    select distinct offer_key, calculator_key from qualified
),

rates as (
    -- with the offer's calculator, so the matched rows need one join for all their text columns
    select
        rate_rows.*,
        offer_calculators.calculator_key,
        row_number() over (
            order by rate_rows.offer_key, rate_rows.incentive_rate_key, rate_rows.sku_key,
                rate_rows.transaction_type, rate_rows.start_date, rate_rows.end_date
        ) as rate_id
    from rate_rows
    left join offer_calculators on offer_calculators.offer_key = rate_rows.offer_key
),

entity_skus as (
    select distinct entity_id, sku_key from bucket_rows
),

rate_pairs as (
    select
        qualified.entity_id,
        rates.rate_id,
        rates.sku_key,
        rates.transaction_type,
        rates.start_date,
        rates.end_date,
        rates.calculator_key = 'fixed_amount' as is_shared,
        qualified.qualified
    from rates
    inner join qualified on qualified.offer_key = rates.offer_key
    -- only the participant x SKU pairs with transactions: a far smaller hash table below (a
    -- semi join, which the optimizer does not reorder with the joins around it)
    where exists (
        select 1 from entity_skus
        where entity_skus.entity_id = qualified.entity_id and entity_skus.sku_key = rates.sku_key
    )
),

matched as (
    select
        rate_pairs.rate_id,
        rate_pairs.is_shared,
        rate_pairs.qualified,
        transactions.entity_id,
        transactions.transaction_id,
        transactions.quantity,
        transactions.uom_key,
        transactions.amount,
        transactions.value
    from transactions
    inner join rate_pairs
        on rate_pairs.entity_id = transactions.entity_id
        and rate_pairs.sku_key = transactions.sku_key
    where (rate_pairs.transaction_type is null or rate_pairs.transaction_type = transactions.transaction_type)
        and transactions.transaction_date >= rate_pairs.start_date
        and transactions.transaction_date <= rate_pairs.end_date
),

{%- for part in ['unshared', 'shared'] %}

{{ part }}_decorated as (
    -- a left join (every rate_id exists) keeps the wide rate columns out of the join above
    select
        matched.entity_id,
        rates.program_key,
        rates.offer_key,
        rates.calculator_key as offer_calculator,
        'standard' as strategy_key,
        rates.sku_key,
        rates.incentive_rate_key,
        rates.measure as incentive_rate_measure,
        rates.rate,
        matched.transaction_id,
        matched.quantity,
        matched.uom_key,
        matched.amount,
        matched.value,
        matched.qualified
    from matched
    left join rates on rates.rate_id = matched.rate_id
    where {{ 'not ' if part == 'unshared' }}matched.is_shared
),
{%- endfor %}

earning_rows as (
    -- only fixed_amount shares a total: the entry x SKU total over its transactions
    {{ incentives._shared_earning_rows('unshared_decorated', 'shared_decorated',
                                       'entity_id, offer_key, incentive_rate_key, sku_key') }}
),

final as (
    select
        entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
        incentive_rate_key, incentive_rate_measure, rate, transaction_id,
        quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
        {{ incentives.cast_measure('quantity') }} as quantity,
        value,
        share_total,
        cast(null as {{ incentives.type_measure() }}) as coverage,
        cast(null as {{ incentives.type_measure() }}) as overlap,
        cast(null as {{ incentives.type_measure() }}) as set_coverage,
        qualified
    from earning_rows
)

select * from final
