with source as (
    select * from {{ source('incentives_input', 'properties') }}
),

final as (
    select
        lower(trim(cast(level as {{ dbt.type_string() }}))) as level,
        nullif(trim(cast(entity_id as {{ dbt.type_string() }})), '') as entity_id,
        nullif(trim(cast(transaction_id as {{ dbt.type_string() }})), '') as transaction_id,
        cast(key as {{ dbt.type_string() }}) as property_key,
        cast(value as {{ dbt.type_string() }}) as property_value
    from source
)

select * from final
