with source as (
    select * from {{ incentives.read_rule_table('qualification_brand_rules', {
        'qualification_id': 'bigint',
        'rule': dbt.type_string(),
        'rule_key': dbt.type_string()
    }) }} as rules
),

final as (
    select * from source
)

select * from final
