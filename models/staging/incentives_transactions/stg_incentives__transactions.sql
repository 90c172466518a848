with source as (
    select * from {{ source('incentives_transactions', 'transactions') }}
),

final as (
    select
        cast(transaction_id as {{ dbt.type_string() }}) as transaction_id,
        cast(entity_id as {{ dbt.type_string() }}) as entity_id,
        cast(transaction_type as {{ dbt.type_string() }}) as transaction_type,
        cast(transaction_date as date) as transaction_date,
        cast(sku_key as {{ dbt.type_string() }}) as sku_key,
        cast(quantity as {{ incentives.type_input_number() }}) as quantity,
        cast(uom_key as {{ dbt.type_string() }}) as uom_key,
        cast(amount as {{ incentives.type_input_number() }}) as amount
        {%- for column in incentives.transaction_passthrough_columns() %},
        {{ column.name }} as {{ column.alias }}
        {%- endfor %}
    from source
)

select * from final
