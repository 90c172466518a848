with source as (
    select * from {{ incentives.read_rule_table('standard_rates', {
        'program_key': dbt.type_string(),
        'offer_key': dbt.type_string(),
        'incentive_rate_key': dbt.type_string(),
        'sku_key': dbt.type_string(),
        'transaction_type': dbt.type_string(),
        'start_date': 'date',
        'end_date': 'date',
        'measure': dbt.type_string(),
        'rate': 'decimal(38,10)'
    }) }} as rules
),

final as (
    select * from source
)

select * from final
