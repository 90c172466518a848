with source as (
    select * from {{ incentives.read_rule_table('qualifications', {
        'qualification_id': 'bigint',
        'program_key': dbt.type_string(),
        'offer_key': dbt.type_string(),
        'qualification_key': dbt.type_string(),
        'qualification_level': dbt.type_string(),
        'qualification_type': dbt.type_string(),
        'operator': dbt.type_string(),
        'qualification_value': 'decimal(38,10)',
        'is_boolean': 'boolean',
        'filter_id': 'bigint',
        'numerator_filter_id': 'bigint',
        'denominator_filter_id': 'bigint',
        'divisor': 'decimal(38,10)',
        'property_key': dbt.type_string(),
        'property_level': dbt.type_string(),
        'has_brand_list': 'boolean'
    }) }} as rules
),

final as (
    select * from source
)

select * from final
