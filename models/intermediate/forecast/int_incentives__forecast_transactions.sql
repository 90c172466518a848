{{ config(materialized=incentives.materialized_when(incentives.using_forecast(), 'table')) }}

-- The projected transactions of the forecast (docs/forecast.md), in the columns of the scenarios'
-- hypothetical transactions, under the forecast's scenario id '' (an input scenario_id is never
-- empty): per participant of int_incentives__forecast_participants, seasonal: each transaction of
-- (as_of - 1 year, horizon - 1 year] one year later, quantity and amount x g (one exact quotient
-- each, rounded half away from zero to the inputs' 4 places: a projected transaction is an input
-- like any other); recent: each of [as_of - L + 1, as_of] L days later, as it is. Type, SKU and
-- unit stay; the id is '~forecast~' || the projected transaction's id.
{%- if incentives.using_forecast() %}
with transactions as (
    select * from {{ ref('incentives', 'stg_incentives__transactions') }}
    where entity_id is not null and transaction_date is not null
),

participants as (
    select * from {{ ref('incentives', 'int_incentives__forecast_participants') }}
    where method <> 'none'
),

projected as (
    select
        transactions.entity_id,
        {{ dbt.concat(["'~forecast~'", 'transactions.transaction_id']) }} as transaction_id,
        transactions.transaction_type,
        case when participants.method = 'seasonal'
             then {{ incentives.add_years('transactions.transaction_date', 1) }}
             else {{ incentives.add_days('transactions.transaction_date', 'participants.lag_days') }} end as transaction_date,
        transactions.sku_key,
        case when participants.method = 'seasonal'
             then {{ incentives.multiply_divide('transactions.quantity', 'participants.growth_numerator', '1', 'participants.growth_denominator', 4) }}
             else transactions.quantity end as quantity,
        transactions.uom_key,
        case when participants.method = 'seasonal'
             then {{ incentives.multiply_divide('transactions.amount', 'participants.growth_numerator', '1', 'participants.growth_denominator', 4) }}
             else transactions.amount end as amount
    from transactions
    inner join participants on participants.entity_id = transactions.entity_id
    where (participants.method = 'seasonal'
            and transactions.transaction_date > participants.as_of_last_year
            and transactions.transaction_date <= participants.horizon_last_year)
        or (participants.method = 'recent'
            and transactions.transaction_date >= participants.recent_start
            and transactions.transaction_date <= participants.as_of)
),

final as (
    select
        cast('' as {{ dbt.type_string() }}) as scenario_id,
        entity_id,
        transaction_id,
        transaction_type,
        transaction_date,
        sku_key,
        cast(quantity as {{ incentives.type_input_number() }}) as quantity,
        uom_key,
        cast(amount as {{ incentives.type_input_number() }}) as amount
    from projected
)

select * from final
{%- else %}
-- incentives_using_forecast is false: nothing projected (an empty table of the same columns)
select
        cast(null as {{ dbt.type_string() }}) as scenario_id,
        {{- incentives._typed_transaction_columns(empty=true) }}
from {{ ref('incentives', 'int_incentives__forecast_participants') }}
where 1 = 0
{%- endif %}
