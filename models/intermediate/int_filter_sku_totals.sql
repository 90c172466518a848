-- Net quantity and value per participant x filter group x SKU. The compiler turns each filter
-- group into non-overlapping (SKU or any, transaction type, time bucket) keys, so a plain key join
-- of the pre-aggregated rows counts every transaction once (the union of entries).
with bucket_rows as (
    select * from {{ ref('int_transaction_buckets') }}
),

filter_keys as (
    select * from {{ ref('stg_rules__filter_keys') }}
),

sku_matches as (
    select
        filter_keys.filter_id,
        bucket_rows.entity_id,
        bucket_rows.sku_key,
        bucket_rows.quantity,
        bucket_rows.value
    from bucket_rows
    inner join filter_keys
        on filter_keys.sku_key = bucket_rows.sku_key
        and filter_keys.transaction_type = bucket_rows.transaction_type
        and filter_keys.bucket_id = bucket_rows.bucket_id
),

any_sku_matches as (
    select
        filter_keys.filter_id,
        bucket_rows.entity_id,
        bucket_rows.sku_key,
        bucket_rows.quantity,
        bucket_rows.value
    from bucket_rows
    inner join filter_keys
        on filter_keys.transaction_type = bucket_rows.transaction_type
        and filter_keys.bucket_id = bucket_rows.bucket_id
    where filter_keys.sku_key is null
),

matches as (
    select * from sku_matches
    union all
    select * from any_sku_matches
),

final as (
    select
        filter_id,
        entity_id,
        sku_key,
        sum(quantity) as quantity,
        sum(value) as value
    from matches
    group by filter_id, entity_id, sku_key
)

select * from final
