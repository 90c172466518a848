with source as (
    select * from {{ source('incentives_input', 'enrollments') }}
),

final as (
    select distinct
        cast(entity_id as {{ dbt.type_string() }}) as entity_id,
        cast(program_key as {{ dbt.type_string() }}) as program_key
    from source
)

select * from final
