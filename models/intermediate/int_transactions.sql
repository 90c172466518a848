-- Transactions with their value (quantity x program price on the date, else amount) and the
-- time bucket their date falls in.
with transactions as (
    select * from {{ ref('stg_transactions') }}
),

prices as (
    select * from {{ ref('stg_prices') }}
),

buckets as (
    select * from {{ ref('stg_rules__time_buckets') }}
),

candidate_prices as (
    select
        transactions.transaction_id,
        prices.price,
        row_number() over (
            partition by transactions.transaction_id
            order by prices.start_date desc nulls last, prices.end_date desc nulls first, prices.price
        ) as price_rank
    from transactions
    inner join prices
        on prices.sku_key = transactions.sku_key
        and (prices.start_date is null or prices.start_date <= transactions.transaction_date)
        and (prices.end_date is null or transactions.transaction_date <= prices.end_date)
),

program_prices as (
    select transaction_id, price from candidate_prices where price_rank = 1
),

final as (
    select
        transactions.transaction_id,
        transactions.entity_id,
        transactions.transaction_type,
        transactions.transaction_date,
        transactions.sku_key,
        transactions.quantity,
        transactions.uom_key,
        transactions.amount,
        {{ incentives.cast_measure(
            "case when program_prices.price is not null
                  then cast(transactions.quantity as decimal(38,4)) * program_prices.price
                  else transactions.amount end") }} as value,
        buckets.bucket_id
    from transactions
    left join program_prices on program_prices.transaction_id = transactions.transaction_id
    left join buckets
        on transactions.transaction_date >= buckets.start_date
        and transactions.transaction_date <= buckets.end_date
)

select * from final
