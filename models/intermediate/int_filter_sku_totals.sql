-- Net quantity and value per participant x filter group x SKU. A pre-aggregated row that
-- matches several entries of one group counts once (union).
with bucket_rows as (
    select * from {{ ref('int_transaction_buckets') }}
),

entries as (
    select * from {{ ref('stg_rules__filter_entries') }}
),

sku_entries as (
    select * from entries where sku_key is not null
),

any_sku_entries as (
    select * from entries where sku_key is null
),

sku_matches as (
    select
        sku_entries.filter_id,
        bucket_rows.entity_id,
        bucket_rows.sku_key,
        bucket_rows.transaction_type,
        bucket_rows.bucket_id,
        bucket_rows.quantity,
        bucket_rows.value
    from bucket_rows
    inner join sku_entries on sku_entries.sku_key = bucket_rows.sku_key
    where (sku_entries.transaction_type is null or sku_entries.transaction_type = bucket_rows.transaction_type)
        and bucket_rows.bucket_start >= sku_entries.start_date
        and bucket_rows.bucket_end <= sku_entries.end_date
),

any_sku_matches as (
    select
        any_sku_entries.filter_id,
        bucket_rows.entity_id,
        bucket_rows.sku_key,
        bucket_rows.transaction_type,
        bucket_rows.bucket_id,
        bucket_rows.quantity,
        bucket_rows.value
    from bucket_rows
    inner join any_sku_entries
        on (any_sku_entries.transaction_type is null or any_sku_entries.transaction_type = bucket_rows.transaction_type)
        and bucket_rows.bucket_start >= any_sku_entries.start_date
        and bucket_rows.bucket_end <= any_sku_entries.end_date
),

matches as (
    select * from sku_matches
    union
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
