{#- The reconciliation of vendor statements against the engine (docs/reconciliation.md): helpers of
    the staging models under models/staging/incentives_statements/, the model
    int_incentives__reconciliation_pairs and the marts of models/reconciliation/. -#}

{#- A statement's value as trimmed text, null when empty. -#}
{% macro _statement_text(column_name) -%}
nullif(trim(cast({{ column_name }} as {{ dbt.type_string() }})), '')
{%- endmacro %}

{#- A statement's number (JSON number or numeric text) as DECIMAL(38,10). -#}
{% macro _statement_number(column_name) -%}
{{ incentives.cast_measure(incentives._statement_text(column_name)) }}
{%- endmacro %}

{#- A statement's true / false (JSON boolean, or its text in any case). -#}
{% macro _statement_boolean(column_name) -%}
case lower({{ incentives._statement_text(column_name) }}) when 'true' then true when 'false' then false end
{%- endmacro %}

{#- The participants a statement was read for (a query): only they are compared. -#}
{% macro _statement_participants(earnings, qualifications) -%}
select entity_id from {{ earnings }}
union
select entity_id from {{ qualifications }}
{%- endmacro %}

{#- How far two amounts of one earning row may be apart and still match (var
    incentives_reconciliation_tolerance, default 0.00: to the cent). -#}
{% macro reconciliation_tolerance() -%}
cast('{{ var("incentives_reconciliation_tolerance", "0.00") }}' as {{ incentives.type_money() }})
{%- endmacro %}

{#- A rate, quantity or amount as compared between the engine and a statement: rounded half away
    from zero to 6 places (the API writes them as JSON floats, which keep 6 places of any value
    below a billion). -#}
{% macro _compared(expr) -%}
{{ incentives.round_half_away(expr, 6) }}
{%- endmacro %}

{#- Whether the engine's and the statement's values differ (false when the statement has none). -#}
{% macro _differs(engine, statement) -%}
coalesce({{ incentives._compared(engine) }} <> {{ incentives._compared(statement) }}, false)
{%- endmacro %}

{#- Money as text for an explanation: 1234.50, -0.01. -#}
{% macro _money_text(expr) -%}
cast({{ incentives.cast_money(expr) }} as {{ dbt.type_string() }})
{%- endmacro %}

{#- A count and its words for an explanation: `1 line differs`, `3 lines differ` (`n` an integer
    column; `one`, `many` the words after it). -#}
{% macro _counted(n, one, many) -%}
{{ dbt.concat(["cast(" ~ n ~ " as " ~ dbt.type_string() ~ ")",
               "case when " ~ n ~ " = 1 then ' " ~ one ~ "' else ' " ~ many ~ "' end"]) }}
{%- endmacro %}
