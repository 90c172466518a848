{#- fixed_amount: the rate is a dollar total shared in proportion to value (rows only where share_total > 0).
    Returns SQL expressions {pay_rate, incentive, contribution} over an earning row's columns:
    rate, quantity (incentivized), value (incentivized), share_total (fixed_amount: the sum the
    dollar total is shared over), coverage, overlap and set_coverage (stacked). -#}
{% macro calculator_fixed_amount() %}{{ return(adapter.dispatch('calculator_fixed_amount', 'incentives')()) }}{% endmacro %}

{% macro default__calculator_fixed_amount() %}
{{ return({'pay_rate': 'rate', 'incentive': incentives.multiply_divide('rate', 'value', '1', 'share_total', 2), 'contribution': incentives.divide('value', 'share_total', 10)}) }}
{% endmacro %}
