-- materialized as a view: potential_earnings computes and writes the earning rows once
{{ config(materialized='view') }}

-- Standard offers: each incentives[] entry pays the participant's transactions matching its
-- period, transaction type and a SKU of its rates. fixed_amount shares the entry x SKU total
-- over those transactions in proportion to value (nothing when they sum to 0 or less).
with qualified as (
    select * from {{ ref('int_offer_status') }}
    where qualified and strategy_key = 'standard'
),

rates as (
    select * from {{ ref('stg_rules__standard_rates') }}
),

transactions as (
    select * from {{ ref('int_transactions') }}
),

matched as (
    select
        qualified.entity_id,
        rates.program_key,
        rates.offer_key,
        qualified.calculator_key as offer_calculator,
        qualified.strategy_key,
        rates.sku_key,
        rates.incentive_rate_key,
        rates.measure as incentive_rate_measure,
        rates.rate,
        transactions.transaction_id,
        transactions.quantity,
        transactions.uom_key,
        transactions.amount,
        transactions.value
    from rates
    inner join qualified on qualified.offer_key = rates.offer_key
    inner join transactions
        on transactions.entity_id = qualified.entity_id
        and transactions.sku_key = rates.sku_key
    where (rates.transaction_type is null or rates.transaction_type = transactions.transaction_type)
        and transactions.transaction_date >= rates.start_date
        and transactions.transaction_date <= rates.end_date
),

share_totals as (
    -- only fixed_amount shares a total (a window over every earning row would cost a sort)
    select entity_id, offer_key, incentive_rate_key, sku_key, sum(value) as share_total
    from matched
    where offer_calculator = 'fixed_amount'
    group by entity_id, offer_key, incentive_rate_key, sku_key
),

shared as (
    select
        matched.*,
        share_totals.share_total
    from matched
    left join share_totals
        on share_totals.entity_id = matched.entity_id
        and share_totals.offer_key = matched.offer_key
        and share_totals.incentive_rate_key = matched.incentive_rate_key
        and share_totals.sku_key = matched.sku_key
),

final as (
    select
        entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
        incentive_rate_key, incentive_rate_measure, rate, transaction_id,
        quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
        {{ incentives.cast_measure('quantity') }} as quantity,
        value,
        {{ incentives.cast_measure('share_total') }} as share_total,
        cast(null as {{ incentives.type_measure() }}) as covered_units,
        cast(null as {{ incentives.type_measure() }}) as contribution
    from shared
    where offer_calculator <> 'fixed_amount' or share_total > 0
)

select * from final
