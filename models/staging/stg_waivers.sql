with source as (
    select * from {{ source('incentives_input', 'waivers') }}
),

final as (
    select distinct
        cast(program_key as {{ dbt.type_string() }}) as program_key,
        cast(qualification_key as {{ dbt.type_string() }}) as qualification_key,
        nullif(trim(cast(offer_key as {{ dbt.type_string() }})), '') as offer_key,
        nullif(trim(cast(entity_id as {{ dbt.type_string() }})), '') as entity_id
    from source
)

select * from final
