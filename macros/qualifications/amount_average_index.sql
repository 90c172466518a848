{#- amount_average_index: numerator amount against (denominator amount / divisor) x value / 100; met when the denominator <= 0.
    Returns the SQL expressions {actual, target, met_when} over the columns of
    int_qualification_measures' `measured` CTE; met_when (or 'false') forces met = true. -#}
{% macro qualification_amount_average_index() %}{{ return(adapter.dispatch('qualification_amount_average_index', 'incentives')()) }}{% endmacro %}

{% macro default__qualification_amount_average_index() %}
{{ return({'actual': 'numerator_amount', 'target': incentives.divide('denominator_amount * qualification_value', 'divisor * 100', 10), 'met_when': 'denominator_amount <= 0'}) }}
{% endmacro %}
