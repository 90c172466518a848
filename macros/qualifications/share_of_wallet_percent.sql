{#- share_of_wallet_percent: numerator amount against denominator amount x value / 100; no special case for 0.
    Returns its measure ('ratio': the model int_incentives__qualification_measures_ratio evaluates it)
    and the SQL expressions {actual, target, met_when} over the columns of that model's `measured`
    CTE; met_when (or 'false') forces met = true. The
    target (x / 100) is exact at 20 places: it is reported rounded to 10, `met` compares exactly. -#}
{% macro qualification_share_of_wallet_percent() %}{{ return(adapter.dispatch('qualification_share_of_wallet_percent', 'incentives')()) }}{% endmacro %}

{% macro default__qualification_share_of_wallet_percent() %}
{{ return({'measure': 'ratio', 'actual': 'numerator_amount', 'target': incentives.round_half_away('denominator_amount * qualification_value * 0.01', 10), 'difference': incentives.round_half_away('numerator_amount - denominator_amount * qualification_value * 0.01', 10), 'compare_actual': 'numerator_amount * 100', 'compare_target': 'denominator_amount * qualification_value', 'met_when': 'false'}) }}
{% endmacro %}
