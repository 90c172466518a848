{#- dollars_per_unit: quantity x rate.
    Returns SQL expressions {pay_rate, incentive, contribution} over an earning row's columns:
    rate, quantity (incentivized), value (incentivized), share_total (fixed_amount: the sum the
    dollar total is shared over), coverage, overlap and set_coverage (stacked). -#}
{% macro calculator_dollars_per_unit() %}{{ return(adapter.dispatch('calculator_dollars_per_unit', 'incentives')()) }}{% endmacro %}

{% macro default__calculator_dollars_per_unit() %}
{{ return({'pay_rate': 'rate', 'incentive': incentives.round_product('quantity', 'rate', 2), 'contribution': '1'}) }}
{% endmacro %}
