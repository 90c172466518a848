{#- min_text(expr): the smallest text in code point order, the order DuckDB and Spark compare
    strings in. PostgreSQL would use the database's collation (en_US sorts '12,5' before '120');
    the "C" collation compares the UTF-8 bytes, which is code point order. -#}
{% macro min_text(expr) %}{{ return(adapter.dispatch('min_text', 'incentives')(expr)) }}{% endmacro %}
{% macro default__min_text(expr) %}min({{ expr }}){% endmacro %}
{% macro postgres__min_text(expr) %}min({{ expr }} collate "C"){% endmacro %}
