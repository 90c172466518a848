{%- if incentives.setting('incentives_using_enrollments') %}
with source as (
    select * from {{ source('incentives_enrollments', 'enrollments') }}
),

final as (
    select distinct
        cast(entity_id as {{ dbt.type_string() }}) as entity_id,
        cast(program_key as {{ dbt.type_string() }}) as program_key
    from source
)

select * from final
{%- else %}
-- incentives_using_enrollments is false: no enrollments (an empty table of the same columns)
select
        cast(null as {{ dbt.type_string() }}) as entity_id,
        cast(null as {{ dbt.type_string() }}) as program_key
where 1 = 0
{%- endif %}
