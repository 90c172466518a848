with source as (
    select * from {{ incentives.read_rule_table('offers', {
        'program_key': dbt.type_string(),
        'offer_key': dbt.type_string(),
        'strategy_key': dbt.type_string(),
        'calculator_key': dbt.type_string(),
        'threshold_type': dbt.type_string(),
        'threshold_filter_id': 'bigint',
        'threshold_property_key': dbt.type_string(),
        'threshold_property_level': dbt.type_string(),
        'earning_filter_id': 'bigint'
    }) }} as rules
),

final as (
    select * from source
)

select * from final
