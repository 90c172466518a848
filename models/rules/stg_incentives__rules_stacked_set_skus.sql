with source as (
    select * from {{ incentives.read_rule_table('stacked_set_skus', {
        'program_key': dbt.type_string(),
        'offer_key': dbt.type_string(),
        'set_key': dbt.type_string(),
        'sku_key': dbt.type_string(),
        'transaction_type': dbt.type_string(),
        'start_date': 'date',
        'end_date': 'date',
        'from_uom': dbt.type_string(),
        'conversion_rate': 'decimal(38,10)',
        'rate': 'decimal(38,10)',
        'measure': dbt.type_string(),
        'coverage_weight': dbt.type_bigint(),
        'set_conversion_rate': 'decimal(38,10)',
        'offer_coverage_multiplier': 'decimal(38,0)'
    }) }} as rules
),

final as (
    select * from source
)

select * from final
