{#- property: the property value (boolean: 1 / 0) against the value; a missing property is not met.
    Returns the SQL expressions {actual, target, met_when} over the columns of
    int_incentives__qualification_measures' `measured` CTE; met_when (or 'false') forces met = true. -#}
{% macro qualification_property() %}{{ return(adapter.dispatch('qualification_property', 'incentives')()) }}{% endmacro %}

{% macro default__qualification_property() %}
{{ return({'actual': 'property_number', 'target': 'qualification_value', 'met_when': 'false'}) }}
{% endmacro %}
