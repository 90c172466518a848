{#- dbt's seed loader (default__load_csv_rows, which dbt-postgres uses) renders the placeholder of
    every value of a batch by calling the macro get_binding_char, through adapter.dispatch: one
    Jinja macro call per value, ~8 per rule row. That call is what `dbt seed` of the rule tables
    spends its time on (docs/dbt-package.md, "Loading the seeds"), not PostgreSQL. This version
    sends each batch as the same one INSERT ... VALUES with the same values bound by psycopg2 (so
    every value loads exactly as before), with no Jinja work per value or row: each row is one
    bound tuple, which psycopg2 writes as the parenthesized list of its values' literals; the
    tuples are the table's columns zipped, and the placeholders one string repeated.
    dbt uses the root project's postgres__load_csv_rows before the adapter's. A project that
    installs this one as a package gets it only with a dispatch config for the `dbt` namespace
    in its own dbt_project.yml (docs/dbt-package.md, "Use as a dbt package"). -#}
{% macro postgres__load_csv_rows(model, agate_table) %}
  {% set batch_size = get_batch_size() %}
  {% set cols_sql = get_seed_column_quoted_csv(model, agate_table.column_names) %}
  {% set binding = get_binding_char() | trim %}
  {% set columns = [] %}
  {% for column in agate_table.columns %}
      {% do columns.append(column.values()) %}
  {% endfor %}
  {% set statements = [] %}
  {% for chunk in zip_strict(*columns) | batch(batch_size) %}
      {% set sql = 'insert into ' ~ this.render() ~ ' (' ~ cols_sql ~ ') values\n' ~ ([binding] * (chunk | length)) | join(',\n') %}
      {% do adapter.add_query(sql, bindings=chunk, abridge_sql_log=True) %}
      {% if loop.index0 == 0 %}
          {% do statements.append(sql) %}
      {% endif %}
  {% endfor %}
  {{ return(statements[0]) }}
{% endmacro %}
