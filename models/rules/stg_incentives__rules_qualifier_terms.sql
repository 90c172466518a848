with source as (
    select * from {{ incentives.read_rule_table('qualifier_terms', {
        'program_key': dbt.type_string(),
        'offer_key': dbt.type_string(),
        'term_id': 'integer',
        'qualification_key': dbt.type_string()
    }) }} as rules
),

final as (
    select * from source
)

select * from final
