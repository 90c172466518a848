{{ config(materialized='ephemeral') }}

-- The SKUs each program's rules read: those of its filter keys (its qualifications' filters,
-- its stepped offers' threshold and earning filters), of its standard rates and of its stacked
-- sets. A null sku_key: an any-SKU filter key, which reads every SKU. Read by
-- int_incentives__transaction_scope.
with qualifications as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualifications') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

filter_keys as (
    select * from {{ ref('incentives', 'stg_incentives__rules_filter_keys') }}
),

standard_rates as (
    select * from {{ ref('incentives', 'stg_incentives__rules_standard_rates') }}
),

stacked_set_skus as (
    select * from {{ ref('incentives', 'stg_incentives__rules_stacked_set_skus') }}
),

program_filters as (
    {{ incentives._program_filters('qualifications', 'offers', earning=true) }}
),

final as (
    select program_filters.program_key, filter_keys.sku_key
    from program_filters
    inner join filter_keys on filter_keys.filter_id = program_filters.filter_id
    union
    select program_key, sku_key from standard_rates
    union
    select program_key, sku_key from stacked_set_skus
)

select * from final
