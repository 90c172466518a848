{#- dollars_per_coverage_unit (stacked): coverage x rate x overlap / set coverage, one exact division.
    Returns SQL expressions {pay_rate, incentive, contribution} over an earning row's columns:
    rate, quantity (incentivized), value (incentivized), share_total (fixed_amount: the sum the
    dollar total is shared over), coverage, overlap and set_coverage (stacked). -#}
{% macro calculator_dollars_per_coverage_unit() %}{{ return(adapter.dispatch('calculator_dollars_per_coverage_unit', 'incentives')()) }}{% endmacro %}

{% macro default__calculator_dollars_per_coverage_unit() %}
{{ return({'pay_rate': 'rate', 'incentive': incentives.multiply_divide('coverage', 'rate', 'overlap', 'set_coverage', 2), 'contribution': incentives.divide('overlap', 'set_coverage', 10)}) }}
{% endmacro %}
