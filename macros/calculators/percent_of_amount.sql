{#- percent_of_amount: value x rate / 100.
    Returns SQL expressions {pay_rate, incentive, contribution} over an earning row's columns:
    rate, quantity (incentivized), value (incentivized), share_total (fixed_amount: the sum the
    dollar total is shared over), coverage, overlap and set_coverage (stacked). -#}
{% macro calculator_percent_of_amount() %}{{ return(adapter.dispatch('calculator_percent_of_amount', 'incentives')()) }}{% endmacro %}

{% macro default__calculator_percent_of_amount() %}
{#- the pay rate (rate / 100 to 10 places) through round_product too: on DuckDB a DECIMAL(38) product
    on every earning row costs more than the rest of the row's arithmetic -#}
{{ return({'pay_rate': incentives.round_product('rate', '1', 10, -2), 'incentive': incentives.round_product('value', 'rate', 2, -2), 'contribution': '1'}) }}
{% endmacro %}
