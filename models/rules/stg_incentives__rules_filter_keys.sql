with source as (
    select * from {{ incentives.read_rule_table('filter_keys', {
        'filter_id': 'bigint',
        'sku_key': dbt.type_string(),
        'transaction_type': dbt.type_string(),
        'bucket_id': 'integer'
    }) }} as rules
),

final as (
    select * from source
)

select * from final
