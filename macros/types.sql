{#- Column types, in one place. Every amount, quantity and rate is DECIMAL (never floating point). -#}

{% macro type_input_number() %}{{ return(adapter.dispatch('type_input_number', 'incentives')()) }}{% endmacro %}
{% macro default__type_input_number() %}decimal(18,4){% endmacro %}

{% macro type_measure() %}{{ return(adapter.dispatch('type_measure', 'incentives')()) }}{% endmacro %}
{% macro default__type_measure() %}decimal(38,10){% endmacro %}

{% macro type_money() %}{{ return(adapter.dispatch('type_money', 'incentives')()) }}{% endmacro %}
{% macro default__type_money() %}decimal(38,2){% endmacro %}

{% macro cast_measure(expr) %}cast({{ expr }} as {{ incentives.type_measure() }}){% endmacro %}
{% macro cast_money(expr) %}cast({{ expr }} as {{ incentives.type_money() }}){% endmacro %}
