{#- print_failing_rows(results): the on-run-end hook (dbt_project.yml) that says what is wrong when
    a data test of this package fails or warns: for each, its meaning (the test's `meta.problem`,
    else its description, else the test's name) and its first failing rows, column by column, so
    the offending key or value is in dbt's output, not only "Got 1 result". Each test's own SQL
    is run again with a limit, only for the tests that failed (nothing runs when all pass).
    Printed with print(), which `--quiet` keeps; `incentives run` puts these lines into its error
    message (compiler/run/build.py). -#}
{% macro print_failing_rows(results, limit=5, max_columns=8) %}
{%- if execute -%}
{%- for result in results
      if result.node.resource_type == 'test' and result.node.package_name == 'incentives'
      and result.status in ('fail', 'warn') and result.node.compiled_code -%}
  {%- set node = result.node -%}
  {%- set meaning = (node.config.meta or {}).get('problem') or node.description
                    or (node.test_metadata.name if node.test_metadata else node.name) -%}
  {%- set sample = run_query('select * from (' ~ node.compiled_code ~ ') as failing_rows limit ' ~ limit) -%}
  {%- set lines = [] -%}
  {%- for row in sample.rows -%}
    {%- set cells = [] -%}
    {%- for column in sample.column_names[:max_columns] -%}
      {%- do cells.append(column ~ ' = ' ~ (row[column] if row[column] is not none else 'null')) -%}
    {%- endfor -%}
    {%- do lines.append('    ' ~ cells | join(', ')) -%}
  {%- endfor -%}
  {%- set more = result.failures - (sample.rows | length) -%}
  {%- do print('failing rows of test ' ~ node.name ~ ' (' ~ meaning ~ '): ' ~ result.failures
               ~ (' row' if result.failures == 1 else ' rows') ~ (', e.g.' if more > 0 else '') ~ '\n'
               ~ lines | join('\n') ~ ('\n    ... and ' ~ more ~ ' more' if more > 0 else '')) -%}
{%- endfor -%}
{%- endif -%}
{% endmacro %}
