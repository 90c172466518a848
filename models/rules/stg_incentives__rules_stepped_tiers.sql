with source as (
    select * from {{ incentives.read_rule_table('stepped_tiers', {
        'program_key': dbt.type_string(),
        'offer_key': dbt.type_string(),
        'tier_key': dbt.type_string(),
        'threshold': 'decimal(38,10)',
        'rate': 'decimal(38,10)',
        'measure': dbt.type_string(),
        'tier_rank': 'integer'
    }) }} as rules
),

final as (
    select * from source
)

select * from final
