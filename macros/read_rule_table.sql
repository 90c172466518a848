{#- read_rule_table(name, columns): the compiled rule table `name` with typed columns.
    DuckDB reads the CSV written by `incentives compile` (var rules_dir) directly; other engines
    read a table of that name in the `rules_schema` (loaded by `incentives run`). -#}
{% macro read_rule_table(name, columns) %}{{ return(adapter.dispatch('read_rule_table', 'incentives')(name, columns)) }}{% endmacro %}

{% macro default__read_rule_table(name, columns) -%}
(select
  {%- for column, type in columns.items() %}
  cast({{ column }} as {{ type }}) as {{ column }}{{ "," if not loop.last }}
  {%- endfor %}
 from {{ var('rules_schema', 'incentive_rules') }}.{{ name }})
{%- endmacro %}

{% macro duckdb__read_rule_table(name, columns) -%}
read_csv('{{ var("rules_dir") }}/{{ name }}.csv', header = true, skip = 1, quote = '"', escape = '"',
  columns = {
  {%- for column, type in columns.items() %}
    '{{ column }}': '{{ type }}'{{ "," if not loop.last }}
  {%- endfor %}
  })
{%- endmacro %}
