with source as (
    select * from {{ incentives.read_rule_table('periods', {
        'start_date': 'date',
        'end_date': 'date'
    }) }} as rules
),

final as (
    select * from source
)

select * from final
