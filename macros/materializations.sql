{#- long_query_materialization(): how a model read once by the next model is materialized: a view
    (its reader writes the rows once), but a table on Spark, whose metastore keeps a view's text in
    32,700 characters (Derby's column) and these models' SQL is longer there. -#}
{% macro long_query_materialization() %}{{ return(adapter.dispatch('long_query_materialization', 'incentives')()) }}{% endmacro %}
{% macro default__long_query_materialization() %}{{ return('view') }}{% endmacro %}
{% macro spark__long_query_materialization() %}{{ return('table') }}{% endmacro %}
