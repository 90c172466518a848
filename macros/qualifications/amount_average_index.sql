{#- amount_average_index: numerator amount against (denominator amount / divisor) x value / 100; met when the denominator <= 0.
    Returns its measure ('ratio': the model int_incentives__qualification_measures_ratio evaluates it)
    and the SQL expressions {actual, target, met_when} over the columns of that model's `measured`
    CTE; met_when (or 'false') forces met = true. The
    divisor is positive (a compile error otherwise), so `met` compares actual x divisor x 100 with
    denominator x value exactly; target and difference are each one exact quotient. -#}
{% macro qualification_amount_average_index() %}{{ return(adapter.dispatch('qualification_amount_average_index', 'incentives')()) }}{% endmacro %}

{% macro default__qualification_amount_average_index() %}
{{ return({'measure': 'ratio', 'actual': 'numerator_amount',
            'target': incentives.quotient([['denominator_amount', 'qualification_value']], '1', 'divisor * 100', 10),
            'difference': incentives.quotient([['numerator_amount', 'divisor * 100'], ['-denominator_amount', 'qualification_value']], '1', 'divisor * 100', 10),
            'compare_actual': 'numerator_amount * divisor * 100', 'compare_target': 'denominator_amount * qualification_value',
            'met_when': 'denominator_amount <= 0'}) }}
{% endmacro %}
