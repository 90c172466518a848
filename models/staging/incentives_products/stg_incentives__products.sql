with source as (
    select * from {{ source('incentives_products', 'products') }}
),

final as (
    select
        cast(sku_key as {{ dbt.type_string() }}) as sku_key,
        {{ incentives.min_text("cast(nullif(trim(cast(brand_key as " ~ dbt.type_string() ~ ")), '') as " ~ dbt.type_string() ~ ")") }} as brand_key
    from source
    group by 1
)

select * from final
