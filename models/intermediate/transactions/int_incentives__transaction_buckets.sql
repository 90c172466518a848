-- Transactions pre-aggregated once per participant x SKU x type x time bucket: every filter
-- (qualifications, stepped thresholds) is evaluated on these rows, never per transaction.
with transactions as (
    select * from {{ ref('incentives', 'int_incentives__transactions') }}
),

buckets as (
    select * from {{ ref('incentives', 'stg_incentives__rules_time_buckets') }}
),

aggregated as (
    select
        entity_id,
        sku_key,
        transaction_type,
        bucket_id,
        sum(quantity) as quantity,
        sum(value) as value
    from transactions
    where entity_id is not null and bucket_id is not null
    group by entity_id, sku_key, transaction_type, bucket_id
),

final as (
    select
        aggregated.*,
        buckets.start_date as bucket_start,
        buckets.end_date as bucket_end
    from aggregated
    inner join buckets on buckets.bucket_id = aggregated.bucket_id
)

select * from final
