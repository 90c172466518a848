{%- if incentives.setting('incentives_using_properties') %}
with source as (
    select * from {{ source('incentives_properties', 'properties') }}
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
{%- else %}
-- incentives_using_properties is false: no properties (an empty table of the same columns)
select
        cast(null as {{ dbt.type_string() }}) as level,
        cast(null as {{ dbt.type_string() }}) as entity_id,
        cast(null as {{ dbt.type_string() }}) as transaction_id,
        cast(null as {{ dbt.type_string() }}) as property_key,
        cast(null as {{ dbt.type_string() }}) as property_value
where 1 = 0
{%- endif %}
