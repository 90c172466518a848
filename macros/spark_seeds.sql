{#- dbt-spark's seed loader binds each value as a parameter; through the in-process session a NULL
    (an empty CSV field) arrives as the text 'None' (`cast('None' as bigint)` fails, and a text
    column would hold 'None'). This version writes each value as a literal instead: NULL for an
    empty field, a quoted and escaped string otherwise, cast to the seed's declared column type.
    dbt uses the root project's spark__load_csv_rows before the adapter's. -#}
{% macro spark__load_csv_rows(model, agate_table) %}
  {% set batch_size = get_batch_size() %}
  {% set column_override = model['config'].get('column_types', {}) %}
  {% set statements = [] %}
  {% for chunk in agate_table.rows | batch(batch_size) %}
      {% set sql %}
          insert into {{ this.render() }} values
          {% for row in chunk -%}
              ({%- for col_name in agate_table.column_names -%}
                  {%- set inferred_type = adapter.convert_type(agate_table, loop.index0) -%}
                  {%- set type = column_override.get(col_name, inferred_type) -%}
                  {%- set value = row[loop.index0] -%}
                  {%- if value is none -%}
                    cast(null as {{ type }})
                  {%- else -%}
                    cast('{{ value | string | replace("\\", "\\\\") | replace("'", "\\'") }}' as {{ type }})
                  {%- endif -%}
                  {%- if not loop.last %},{% endif %}
              {%- endfor -%})
              {%- if not loop.last %},{% endif %}
          {%- endfor %}
      {% endset %}
      {% do adapter.add_query(sql, abridge_sql_log=True) %}
      {% if loop.index0 == 0 %}
          {% do statements.append(sql) %}
      {% endif %}
  {% endfor %}
  {{ return(statements[0]) }}
{% endmacro %}
