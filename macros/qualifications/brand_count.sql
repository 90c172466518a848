{#- brand_count: distinct brands with net matching quantity > 0 (see int_incentives__brand_counts).
    Returns its measure ('brand_count': the model int_incentives__qualification_measures_brand_count evaluates it)
    and the SQL expressions {actual, target, met_when} over the columns of that model's `measured`
    CTE; met_when (or 'false') forces met = true. -#}
{% macro qualification_brand_count() %}{{ return(adapter.dispatch('qualification_brand_count', 'incentives')()) }}{% endmacro %}

{% macro default__qualification_brand_count() %}
{{ return({'measure': 'brand_count', 'actual': 'brand_count', 'target': 'qualification_value', 'met_when': 'false'}) }}
{% endmacro %}
