{#- yoy_quantity_index: numerator quantity against denominator quantity x value / 100; met when the denominator <= 0.
    Returns its measure ('ratio': the model int_incentives__qualification_measures_ratio evaluates it)
    and the SQL expressions {actual, target, met_when} over the columns of that model's `measured`
    CTE; met_when (or 'false') forces met = true. The
    target (x / 100) is exact at 20 places: it is reported rounded to 10, `met` compares exactly. -#}
{% macro qualification_yoy_quantity_index() %}{{ return(adapter.dispatch('qualification_yoy_quantity_index', 'incentives')()) }}{% endmacro %}

{% macro default__qualification_yoy_quantity_index() %}
{{ return({'measure': 'ratio', 'actual': 'numerator_quantity', 'target': incentives.round_half_away('denominator_quantity * qualification_value * 0.01', 10), 'difference': incentives.round_half_away('numerator_quantity - denominator_quantity * qualification_value * 0.01', 10), 'compare_actual': 'numerator_quantity * 100', 'compare_target': 'denominator_quantity * qualification_value', 'met_when': 'denominator_quantity <= 0'}) }}
{% endmacro %}
