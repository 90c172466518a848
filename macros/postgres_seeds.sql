{#- dbt's seed loader (default__load_csv_rows, which dbt-postgres uses) renders the placeholder of
    every value of a batch by calling the macro get_binding_char, through adapter.dispatch: one
    Jinja macro call per value, ~8 per rule row. That call is what `dbt seed` of the rule tables
    spends its time on (docs/dbt-package.md, "Loading the seeds"), not PostgreSQL. This version
    sends the same statements with the same bindings (each batch one INSERT ... VALUES whose
    values psycopg2 binds, so every value loads exactly as before): it asks for the placeholder
    once and writes a batch's placeholders by repeating one row's, and gathers the bindings with
    one call per row.
    dbt uses the root project's postgres__load_csv_rows before the adapter's. A project that
    installs this one as a package gets it only with a dispatch config for the `dbt` namespace
    in its own dbt_project.yml (docs/dbt-package.md, "Use as a dbt package"). -#}
{% macro postgres__load_csv_rows(model, agate_table) %}
  {% set batch_size = get_batch_size() %}
  {% set cols_sql = get_seed_column_quoted_csv(model, agate_table.column_names) %}
  {% set binding = get_binding_char() | trim %}
  {% set row_sql = '(' ~ ([binding] * (agate_table.column_names | length)) | join(',') ~ ')' %}
  {% set statements = [] %}
  {% for chunk in agate_table.rows | batch(batch_size) %}
      {% set bindings = [] %}
      {% for row in chunk %}
          {% do bindings.extend(row) %}
      {% endfor %}
      {% set sql = 'insert into ' ~ this.render() ~ ' (' ~ cols_sql ~ ') values\n' ~ ([row_sql] * (chunk | length)) | join(',\n') %}
      {% do adapter.add_query(sql, bindings=bindings, abridge_sql_log=True) %}
      {% if loop.index0 == 0 %}
          {% do statements.append(sql) %}
      {% endif %}
  {% endfor %}
  {{ return(statements[0]) }}
{% endmacro %}
