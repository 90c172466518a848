{#- aggregated_amount: the participant's net value over the filters against the value.
    Returns its measure ('aggregated': the model int_incentives__qualification_measures_aggregated evaluates it)
    and the SQL expressions {actual, target, met_when} over the columns of that model's `measured`
    CTE; met_when (or 'false') forces met = true. -#}
{% macro qualification_aggregated_amount() %}{{ return(adapter.dispatch('qualification_aggregated_amount', 'incentives')()) }}{% endmacro %}

{% macro default__qualification_aggregated_amount() %}
{{ return({'measure': 'aggregated', 'actual': 'filter_amount', 'target': 'qualification_value', 'met_when': 'false'}) }}
{% endmacro %}
