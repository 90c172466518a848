{#- The input checks of `incentives run` (compiler/validate_data.py) as dbt data tests on the
    sources, so that `dbt build` alone refuses the same bad rows. Each returns the offending rows
    (with the value that is wrong). tests/test_validate_data.py checks that every check of the
    CLI is declared on the sources (models/staging/_sources.yml). -#}

{#- The value as trimmed text, null when empty. -#}
{% macro _input_text(column_name) -%}
nullif(trim(cast({{ column_name }} as {{ dbt.type_string() }})), '')
{%- endmacro %}

{#- not_empty: a required value is missing or blank. -#}
{% test not_empty(model, column_name) %}
select {{ column_name }} as value
from {{ model }}
where {{ incentives._input_text(column_name) }} is null
{% endtest %}

{#- is_number: a value that is not a decimal number the staging cast reads (DECIMAL(18,4): at most
    14 digits before the point). -#}
{% test is_number(model, column_name) %}
select {{ column_name }} as value
from {{ model }}
where {{ incentives._input_text(column_name) }} is not null
  and {{ incentives._not_a_number(incentives._input_text(column_name)) }}
{% endtest %}

{% macro _not_a_number(text) %}{{ return(adapter.dispatch('_not_a_number', 'incentives')(text)) }}{% endmacro %}
{% macro default___not_a_number(text) -%}
try_cast({{ text }} as {{ incentives.type_input_number() }}) is null
{%- endmacro %}
{#- PostgreSQL has no try_cast: the same pattern as a number's text, and the size. -#}
{% macro postgres___not_a_number(text) -%}
(not ({{ text }} ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]{1,3})?$')
 or abs(cast({{ text }} as numeric)) >= 100000000000000)
{%- endmacro %}

{#- is_date: a value that is not an ISO date. -#}
{% test is_date(model, column_name) %}
select {{ column_name }} as value
from {{ model }}
where {{ incentives._input_text(column_name) }} is not null
  and {{ incentives._not_a_date(incentives._input_text(column_name)) }}
{% endtest %}

{% macro _not_a_date(text) %}{{ return(adapter.dispatch('_not_a_date', 'incentives')(text)) }}{% endmacro %}
{% macro default___not_a_date(text) -%}
try_cast({{ text }} as date) is null
{%- endmacro %}
{% macro postgres___not_a_date(text) -%}
not ({{ text }} ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$')
{%- endmacro %}

{#- one_value_per_key: a key listed with different values (a SKU with two brands). -#}
{% test one_value_per_key(model, column_name, value_column) %}
select {{ incentives._input_text(column_name) }} as value, count(distinct {{ incentives._input_text(value_column) }}) as distinct_values
from {{ model }}
group by {{ incentives._input_text(column_name) }}
having count(distinct {{ incentives._input_text(value_column) }}) > 1
{% endtest %}

{#- property_levels: the level is request, entity or transaction (any case), and an entity-level
    row has an entity_id, a transaction-level row a transaction_id. -#}
{% test property_levels(model, column_name) %}
select {{ column_name }} as value, entity_id, transaction_id
from {{ model }}
where lower({{ incentives._input_text(column_name) }}) not in ('request', 'entity', 'transaction')
   or (lower({{ incentives._input_text(column_name) }}) = 'entity' and {{ incentives._input_text('entity_id') }} is null)
   or (lower({{ incentives._input_text(column_name) }}) = 'transaction' and {{ incentives._input_text('transaction_id') }} is null)
{% endtest %}

{#- ends_after_start: a period whose end_date is before its start_date. -#}
{% test ends_after_start(model, column_name, start_column) %}
select {{ start_column }} as start_value, {{ column_name }} as end_value
from {{ model }}
where {{ incentives._as_date(column_name) }} < {{ incentives._as_date(start_column) }}
{% endtest %}

{#- The value as a date, null when empty or not a date (is_date reports those). -#}
{% macro _as_date(column_name) -%}
(case when not {{ incentives._not_a_date(incentives._input_text(column_name)) }}
 then cast({{ incentives._input_text(column_name) }} as date) end)
{%- endmacro %}
