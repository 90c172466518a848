{#- sorted_key_list(expr): an aggregate, the values of `expr` in each group sorted in code point
    order and joined with ',' (the caller makes them distinct). dbt.listagg ignores the order on
    Spark, and PostgreSQL would sort in the database's collation. On DuckDB the list is collected and
    sorted (list_sort, byte = code point order): an ordered string_agg keeps a sort state per group,
    which costs more CPU on int_incentives__qualifier_blocking's millions of groups
    (docs/performance.md). `expr` is never null. -#}
{% macro sorted_key_list(expr) %}{{ return(adapter.dispatch('sorted_key_list', 'incentives')(expr)) }}{% endmacro %}
{% macro default__sorted_key_list(expr) %}{{ dbt.listagg(expr, "','", "order by " ~ expr) }}{% endmacro %}
{% macro postgres__sorted_key_list(expr) %}string_agg({{ expr }}, ',' order by {{ expr }} collate "C"){% endmacro %}
{% macro duckdb__sorted_key_list(expr) %}array_to_string(list_sort(list({{ expr }})), ','){% endmacro %}
{% macro spark__sorted_key_list(expr) %}array_join(array_sort(collect_list({{ expr }})), ','){% endmacro %}
