{{ config(materialized=incentives.materialized_when(incentives.using_scenarios(), 'view')) }}

-- Every transaction a scenario adds to its participant's actual ones: the what-if scenarios'
-- (stg_incentives__scenarios) and the forecast's projected transactions
-- (int_incentives__forecast_transactions, scenario_id ''). docs/scenarios.md, docs/forecast.md.
with scenario_transactions as (
    select * from {{ ref('incentives', 'stg_incentives__scenarios') }}
),

{%- if incentives.forecast_models_built() %}

forecast_transactions as (
    -- read only with the forecast (or its unit tests): without it the forecast's models are
    -- nobody's input and never run (materialized_when)
    select * from {{ ref('incentives', 'int_incentives__forecast_transactions') }}
),
{%- endif %}


final as (
    select scenario_id, entity_id, transaction_id, transaction_type, transaction_date, sku_key, quantity, uom_key, amount
    from scenario_transactions
    {%- if incentives.using_forecast() %}
    union all
    select scenario_id, entity_id, transaction_id, transaction_type, transaction_date, sku_key, quantity, uom_key, amount
    from forecast_transactions
    {%- endif %}
)

select * from final
