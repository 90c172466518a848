-- The transactions some rule can read (int_incentives__transaction_scope: a participant's
-- transactions of the SKUs its programs name), with their value (quantity x program price on
-- the date, else amount) and the time bucket their date falls in. The others (other
-- manufacturers' SKUs, transactions without a participant) cost one scan and are not written.
-- Prices and buckets are resolved once per distinct date (and SKU), so the transactions only
-- meet small tables in equality joins.
with all_transactions as (
    select * from {{ ref('incentives', 'int_incentives__evaluated_transactions') }}
),

scope as (
    select * from {{ ref('incentives', 'int_incentives__transaction_scope') }}
),

prices as (
    select * from {{ ref('incentives', 'stg_incentives__prices') }}
),

buckets as (
    select * from {{ ref('incentives', 'stg_incentives__rules_time_buckets') }}
),

transaction_dates as (
    -- from the model itself, not the CTE above: a CTE read twice is materialized (10M rows)
    select distinct transaction_date from {{ ref('incentives', 'int_incentives__evaluated_transactions') }} where transaction_date is not null
),

date_buckets as (
    select transaction_dates.transaction_date, buckets.bucket_id
    from transaction_dates
    inner join buckets
        on transaction_dates.transaction_date >= buckets.start_date
        and transaction_dates.transaction_date <= buckets.end_date
),

candidate_prices as (
    select
        prices.sku_key,
        transaction_dates.transaction_date,
        prices.price,
        row_number() over (
            partition by prices.sku_key, transaction_dates.transaction_date
            order by prices.start_date desc nulls last, prices.end_date desc nulls first, prices.price
        ) as price_rank
    from prices
    inner join transaction_dates
        on (prices.start_date is null or prices.start_date <= transaction_dates.transaction_date)
        and (prices.end_date is null or transaction_dates.transaction_date <= prices.end_date)
),

day_prices as (
    select sku_key, transaction_date, price from candidate_prices where price_rank = 1
),

scope_pairs as (
    select entity_id, sku_key from scope where entity_id is not null and sku_key is not null
),

scope_participants as (
    select distinct entity_id from scope where entity_id is not null and sku_key is null
),

scope_skus as (
    select distinct sku_key from scope where entity_id is null and sku_key is not null
),

scope_everything as (
    select count(*) > 0 as everything from scope where entity_id is null and sku_key is null
),

transactions as (
    -- left joins to the scopes (each one row per key at most), then one filter
    select all_transactions.*
    from all_transactions
    cross join scope_everything
    left join scope_pairs
        on scope_pairs.entity_id = all_transactions.entity_id
        and scope_pairs.sku_key = all_transactions.sku_key
    left join scope_participants on scope_participants.entity_id = all_transactions.entity_id
    left join scope_skus on scope_skus.sku_key = all_transactions.sku_key
    where all_transactions.entity_id is not null
        and (scope_everything.everything
            or scope_pairs.entity_id is not null
            or scope_participants.entity_id is not null
            or scope_skus.sku_key is not null)
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
            "case when day_prices.price is not null
                  then cast(transactions.quantity as decimal(38,4)) * day_prices.price
                  else transactions.amount end") }} as value,
        date_buckets.bucket_id
    from transactions
    left join day_prices
        on day_prices.sku_key = transactions.sku_key
        and day_prices.transaction_date = transactions.transaction_date
    left join date_buckets on date_buckets.transaction_date = transactions.transaction_date
)

select * from final
