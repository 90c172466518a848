{#- The eight columns of a transaction, typed: from the relation's columns of those names, or all
    null (`empty`: the columns of an empty table). One place for the actual transactions
    (stg_incentives__transactions) and the hypothetical ones (stg_incentives__scenarios). -#}
{% macro _typed_transaction_columns(empty=false) -%}
{%- set columns = [
    ('transaction_id', dbt.type_string()),
    ('entity_id', dbt.type_string()),
    ('transaction_type', dbt.type_string()),
    ('transaction_date', 'date'),
    ('sku_key', dbt.type_string()),
    ('quantity', incentives.type_input_number()),
    ('uom_key', dbt.type_string()),
    ('amount', incentives.type_input_number()),
] -%}
{%- for name, type in columns %}
        cast({{ 'null' if empty else name }} as {{ type }}) as {{ name }}{{ ',' if not loop.last }}
{%- endfor %}
{%- endmacro %}
