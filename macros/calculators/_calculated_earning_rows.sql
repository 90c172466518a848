{#- _calculated_earning_rows(earning_rows): the rows of `earning_rows` (the strategies' earning
    rows: macros/strategies/) in potential_earnings' columns (without run_id), each calculator's
    formula from its macro in this folder (calculate); incentive_amount is rounded to cents row by
    row. One query; read by int_incentives__earnings (qualified pairs) and int_incentives__offer_opportunities (the
    others), so both price a row the same way. -#}
{% macro _calculated_earning_rows(earning_rows) -%}
with calculated_rows as (
    select
        {{ earning_rows }}.*,
        {{ incentives.cast_measure(incentives.calculate('pay_rate')) }} as offer_sku_pay_rate,
        {{ incentives.cast_money(incentives.calculate('incentive')) }} as incentive_amount,
        {{ incentives.cast_measure(incentives.calculate('contribution')) }} as incentive_contribution_percent
    from {{ earning_rows }}
)

select
    entity_id,
    program_key,
    offer_key,
    offer_calculator,
    strategy_key,
    sku_key,
    incentive_rate_key,
    incentive_rate_measure,
    rate as incentive_rate_value,
    offer_sku_pay_rate,
    transaction_id,
    provided_quantity,
    provided_uom_key,
    provided_amount,
    quantity as incentivized_quantity,
    value as incentivized_amount,
    incentive_amount,
    incentive_contribution_percent,
    {{ incentives.divide('incentive_amount', 'value', 10) }} as incentive_effective_rate
from calculated_rows
{%- endmacro %}
