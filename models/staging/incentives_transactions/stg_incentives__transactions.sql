with source as (
    select * from {{ source('incentives_transactions', 'transactions') }}
),

final as (
    select
        {{- incentives._typed_transaction_columns() }}
        {%- for column in incentives.transaction_passthrough_columns() %},
        {{ column.name }} as {{ column.alias }}
        {%- endfor %}
    from source
)

select * from final
