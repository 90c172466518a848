with source as (
    select * from {{ incentives.read_rule_table('stacked_stacks', {
        'program_key': dbt.type_string(),
        'offer_key': dbt.type_string(),
        'stack_key': dbt.type_string(),
        'set_key': dbt.type_string()
    }) }} as rules
),

final as (
    select * from source
)

select * from final
