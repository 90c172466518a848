{#- dbt's default database naming, except on DuckDB when the var `work_database` names an attached
    database (`incentives run` passes the in-memory database the profile attaches): the
    intermediate models are built there. They live only for that one dbt invocation, so the file
    receives the rules, staging views and result tables, and the large intermediate tables never
    pay for being compressed and written to disk. A hand-run `dbt build` builds them in the file. -#}
{% macro generate_database_name(custom_database_name=none, node=none) -%}
    {%- set work = var('work_database', none) -%}
    {%- if work and target.type == 'duckdb' and node is not none and node.resource_type in ('model', 'unit_test')
          and (node.fqn | length) > 1 and node.fqn[1] == 'intermediate' -%}
        {{ work }}
    {%- elif custom_database_name is none -%}
        {{ target.database }}
    {%- else -%}
        {{ custom_database_name | trim }}
    {%- endif -%}
{%- endmacro %}
