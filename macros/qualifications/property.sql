{#- property: the property value (boolean: 1 / 0) against the value; a missing property is not met.
    Returns its measure ('property': the model int_incentives__qualification_measures_property evaluates it)
    and the SQL expressions {actual, target, met_when} over the columns of that model's `measured`
    CTE; met_when (or 'false') forces met = true. -#}
{% macro qualification_property() %}{{ return(adapter.dispatch('qualification_property', 'incentives')()) }}{% endmacro %}

{% macro default__qualification_property() %}
{{ return({'measure': 'property', 'actual': 'property_number', 'target': 'qualification_value', 'met_when': 'false'}) }}
{% endmacro %}
