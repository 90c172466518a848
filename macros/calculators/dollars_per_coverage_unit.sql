{#- dollars_per_coverage_unit (stacked): covered coverage units x rate.
    Returns SQL expressions {pay_rate, incentive, contribution} over an earning row's columns:
    rate, quantity (incentivized), value (incentivized), share_total (fixed_amount: the sum the
    dollar total is shared over) and covered_units (stacked: coverage x contribution). -#}
{% macro calculator_dollars_per_coverage_unit() %}{{ return(adapter.dispatch('calculator_dollars_per_coverage_unit', 'incentives')()) }}{% endmacro %}

{% macro default__calculator_dollars_per_coverage_unit() %}
{{ return({'pay_rate': 'rate', 'incentive': incentives.round_product('covered_units', 'rate', 2), 'contribution': 'contribution'}) }}
{% endmacro %}
