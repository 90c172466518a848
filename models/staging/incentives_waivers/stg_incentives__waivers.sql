{%- if incentives.setting('incentives_using_waivers') %}
with source as (
    select * from {{ source('incentives_waivers', 'waivers') }}
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
{%- else %}
-- incentives_using_waivers is false: no waivers (an empty table of the same columns)
select
        cast(null as {{ dbt.type_string() }}) as program_key,
        cast(null as {{ dbt.type_string() }}) as qualification_key,
        cast(null as {{ dbt.type_string() }}) as offer_key,
        cast(null as {{ dbt.type_string() }}) as entity_id
where 1 = 0
{%- endif %}
