{#- dollars_per_coverage_unit (stacked): coverage x rate x overlap / set coverage, one exact division
    (the coverage is weighted_quantity / set_conversion_rate, so the set's conversion rate
    cancels: weighted quantity x rate x overlap weighted quantity / (overlap conversion rate x set
    weighted quantity)). Returns SQL expressions {pay_rate, incentive, contribution} over an
    earning row's columns: rate, quantity (incentivized), value (incentivized), share_total
    (fixed_amount: the sum the dollar total is shared over) and the stacked columns
    (macros/strategies/stacked.sql). -#}
{% macro calculator_dollars_per_coverage_unit() %}{{ return(adapter.dispatch('calculator_dollars_per_coverage_unit', 'incentives')()) }}{% endmacro %}

{% macro default__calculator_dollars_per_coverage_unit() %}
{{ return({'pay_rate': 'rate',
           'incentive': incentives.quotient_of_products([['weighted_quantity', 4], ['rate', 10]], [['overlap_weighted_quantity', 4]],
                                                        [['overlap_conversion_rate', 10], ['set_weighted_quantity', 4]], 2),
           'contribution': incentives._stacked_share('1', 0, 10)}) }}
{% endmacro %}
