with source as (
    select * from {{ incentives.read_rule_table('filter_entries', {
        'filter_id': 'bigint',
        'sku_key': dbt.type_string(),
        'transaction_type': dbt.type_string(),
        'start_date': 'date',
        'end_date': 'date'
    }) }} as rules
),

final as (
    select * from source
)

select * from final
