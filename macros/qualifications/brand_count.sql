{#- brand_count: distinct brands with net matching quantity > 0 (see int_incentives__brand_counts).
    Returns the SQL expressions {actual, target, met_when} over the columns of
    int_incentives__qualification_measures' `measured` CTE; met_when (or 'false') forces met = true. -#}
{% macro qualification_brand_count() %}{{ return(adapter.dispatch('qualification_brand_count', 'incentives')()) }}{% endmacro %}

{% macro default__qualification_brand_count() %}
{{ return({'actual': 'brand_count', 'target': 'qualification_value', 'met_when': 'false'}) }}
{% endmacro %}
