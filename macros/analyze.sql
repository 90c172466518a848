{#- analyze_table(): every model's post-hook (dbt_project.yml). PostgreSQL plans a query from its
    tables' statistics, and a table a model has just created has none until autovacuum gets to it,
    seconds or minutes later: the next model is planned on guesses. On the 1M two-season data the
    stacked coverage was planned that way and took 237 s; planned on statistics, 1 s
    (docs/performance.md). So on PostgreSQL a table or incremental model analyzes its table; other
    engines and materializations render nothing, which dbt does not run. -#}
{% macro analyze_table() %}{{ return(adapter.dispatch('analyze_table', 'incentives')()) }}{% endmacro %}

{% macro default__analyze_table() %}{% endmacro %}

{% macro postgres__analyze_table() -%}
{%- if model.config.materialized in ('table', 'incremental') -%}analyze {{ this }}{%- endif -%}
{%- endmacro %}
