{%- if incentives.setting('incentives_using_prices') %}
with source as (
    select * from {{ source('incentives_prices', 'prices') }}
),

final as (
    select
        cast(sku_key as {{ dbt.type_string() }}) as sku_key,
        cast(price as {{ incentives.type_input_number() }}) as price,
        cast(start_date as date) as start_date,
        cast(end_date as date) as end_date
    from source
)

select * from final
{%- else %}
-- incentives_using_prices is false: no prices (an empty table of the same columns)
select
        cast(null as {{ dbt.type_string() }}) as sku_key,
        cast(null as {{ incentives.type_input_number() }}) as price,
        cast(null as date) as start_date,
        cast(null as date) as end_date
where 1 = 0
{%- endif %}
