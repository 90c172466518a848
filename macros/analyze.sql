{#- analyze_table(): every model's post-hook (dbt_project.yml). PostgreSQL plans a query from its
    tables' statistics, and a table a model has just created has none until autovacuum gets to it,
    seconds or minutes later: the next model is planned on guesses. On the 1M two-season data the
    stacked coverage was planned that way and took 237 s; planned on statistics, 1 s
    (docs/performance.md). So on PostgreSQL a table or incremental model analyzes its table; other
    engines and materializations render nothing, which dbt does not run. -#}
{% macro analyze_table() %}{{ return(adapter.dispatch('analyze_table', 'incentives')()) }}{% endmacro %}

{% macro default__analyze_table() %}{% endmacro %}

{% macro postgres__analyze_table() -%}
{%- if incentives._builds_a_table() -%}analyze {{ this }}{%- endif -%}
{%- endmacro %}

{#- planner_settings(): every model's pre-hook (dbt_project.yml), run inside the model's
    transaction. PostgreSQL compiles a query whose estimated cost passes jit_above_cost with LLVM
    before running it; the models' queries are long and their estimates large, so it compiled
    them every time and did not earn it back: `offer_results` at 1M spent 10.3 s of 26.6 s in JIT
    compilation and ran in 18.9 s without it (docs/performance.md). On PostgreSQL a table or
    incremental model runs with `set local jit = off` (for its own transaction only); other
    engines and materializations render nothing. A project that wants JIT back overrides
    postgres__planner_settings through its dispatch config (docs/dbt-package.md). -#}
{% macro planner_settings() %}{{ return(adapter.dispatch('planner_settings', 'incentives')()) }}{% endmacro %}

{% macro default__planner_settings() %}{% endmacro %}

{% macro postgres__planner_settings() -%}
{%- if incentives._builds_a_table() -%}set local jit = off{%- endif -%}
{%- endmacro %}

{#- _builds_a_table(): the model being built writes a table (table or incremental), not a view. -#}
{% macro _builds_a_table() %}{{ return(model.config.materialized in ('table', 'incremental')) }}{% endmacro %}
