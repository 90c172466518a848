with source as (
    select * from {{ source('incentives_input', 'prices') }}
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
