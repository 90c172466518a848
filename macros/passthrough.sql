{#- transaction_passthrough_columns(): the extra transaction columns a project carries into
    potential_earnings, from the var `incentives_transaction_passthrough_columns` (the convention
    of Fivetran's dbt packages): a list of column names, or of {name, alias} to rename one.
    Returns a list of {name, alias}. -#}
{% macro transaction_passthrough_columns() -%}
{%- set columns = [] -%}
{%- for column in var('incentives_transaction_passthrough_columns', []) -%}
  {%- if column is mapping -%}
    {%- do columns.append({'name': column['name'], 'alias': column.get('alias', column['name'])}) -%}
  {%- else -%}
    {%- do columns.append({'name': column, 'alias': column}) -%}
  {%- endif -%}
{%- endfor -%}
{{ return(columns) }}
{%- endmacro %}
