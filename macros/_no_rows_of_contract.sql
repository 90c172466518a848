{#- _no_rows_of_contract(): a public mart's columns as its contract declares them (name and
    data_type in its YAML), typed and without rows: the body of a scenario or forecast mart when
    its input is off (materialized_when, macros/settings.sql), so the table exists with its
    enforced contract and the build plans nothing for it. Written from the contract, the types are
    declared once. -#}
{% macro _no_rows_of_contract() -%}
select
    {%- for column in model['columns'].values() %}
    cast(null as {{ column['data_type'] }}) as {{ column['name'] }}{{ ',' if not loop.last }}
    {%- endfor %}
where 1 = 0
{%- endmacro %}
