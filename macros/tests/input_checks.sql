{#- The input checks: data tests on the sources, so that `dbt build` alone refuses bad rows, and the
    one definition of the checks `incentives run` makes too: the CLI compiles these same tests
    (compiler/run/validate_data.py) and runs them on the loaded files, locating each failing row by its
    `_row`. Each test returns the failing rows themselves: `problem_value` (the value to show),
    then every column of the row. What a failure is called in the CLI's message is the test's
    `meta` (`problem`, `expected`) in the source YAML, or a default in compiler/run/validate_data.py. -#}

{#- The failing rows of `model`: those where `predicate` holds, with `shown` as problem_value. -#}
{% macro _failing_rows(model, shown, predicate) -%}
select cast({{ shown }} as {{ dbt.type_string() }}) as problem_value, *
from {{ model }}
where {{ predicate }}
{%- endmacro %}

{#- The value as trimmed text, null when empty. -#}
{% macro _input_text(column_name) %}{{ return(adapter.dispatch('_input_text', 'incentives')(column_name)) }}{% endmacro %}
{% macro default___input_text(column_name) -%}
nullif(trim(cast({{ column_name }} as {{ dbt.type_string() }})), '')
{%- endmacro %}
{#- DuckDB: the same, faster. The type of a column is known when DuckDB plans the query (typeof
    folds to a constant), so only a text column is trimmed, and of its values only those that may
    begin or end with what trim removes (a space, or any non-ASCII character: DuckDB's trim also
    removes Unicode spaces; tests/test_validate_data.py checks that this is trimming every value):
    trimming ten million unique ids costs more than all the other checks of their table. -#}
{% macro duckdb___input_text(column_name) -%}
{%- set c = 'cast(' ~ column_name ~ ' as varchar)' -%}
(case when typeof({{ column_name }}) <> 'VARCHAR' then {{ c }}
      when {{ c }} = '' or {{ c }} like ' %' or {{ c }} like '% ' or strlen({{ c }}) <> length({{ c }})
      then nullif(trim({{ c }}), '')
      else {{ c }} end)
{%- endmacro %}

{#- A value of a typed column (DuckDB: loaded from Parquet) that needs no check through its text:
    `number` (an integer, or a decimal of scale at most 4, read exactly by the staging cast),
    `date`; the default knows no types. -#}
{% macro _typed(column_name, kind) %}{{ return(adapter.dispatch('_typed', 'incentives')(column_name, kind)) }}{% endmacro %}
{% macro default___typed(column_name, kind) -%}
false
{%- endmacro %}
{% macro duckdb___typed(column_name, kind) -%}
{%- if kind == 'number' -%}
(typeof({{ column_name }}) in ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT',
  'UINTEGER', 'UBIGINT', 'UHUGEINT') or regexp_matches(typeof({{ column_name }}), '^DECIMAL\(\d+,[0-4]\)$'))
{%- else -%}
(typeof({{ column_name }}) = 'DATE')
{%- endif -%}
{%- endmacro %}

{#- not_empty: a required value is missing or blank. -#}
{% test not_empty(model, column_name) %}
{{ incentives._failing_rows(model, column_name,
     '(case when ' ~ incentives._typed(column_name, 'number') ~ ' or ' ~ incentives._typed(column_name, 'date')
     ~ ' then ' ~ column_name ~ ' is null else ' ~ incentives._input_text(column_name) ~ ' is null end)') }}
{% endtest %}

{#- is_number: a value that is not a decimal number the staging cast reads (DECIMAL(18,4): at most
    14 digits before the point). -#}
{% test is_number(model, column_name) %}
{#- a typed number: only its size can fail the staging cast. Where the engine does not tell a
    typed column (`_typed` is false), the typed branch is left out: PostgreSQL checks the
    expression's types even in a branch that never runs. -#}
{%- set typed = incentives._typed(column_name, 'number') | trim -%}
{%- set as_text = incentives._input_text(column_name) ~ ' is not null and '
                  ~ incentives._not_a_number(incentives._input_text(column_name)) -%}
{{ incentives._failing_rows(model, column_name,
     '(' ~ as_text ~ ')' if typed == 'false' else
     '(case when ' ~ typed ~ ' then ' ~ column_name ~ ' is not null and '
     ~ incentives._not_a_number(column_name) ~ ' else ' ~ as_text ~ ' end)') }}
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
{{ incentives._failing_rows(model, column_name,
     '(case when ' ~ incentives._typed(column_name, 'date') ~ ' then false else '
     ~ incentives._input_text(column_name) ~ ' is not null and '
     ~ incentives._not_a_date(incentives._input_text(column_name)) ~ ' end)') }}
{% endtest %}

{% macro _not_a_date(text) %}{{ return(adapter.dispatch('_not_a_date', 'incentives')(text)) }}{% endmacro %}
{% macro default___not_a_date(text) -%}
try_cast({{ text }} as date) is null
{%- endmacro %}
{% macro postgres___not_a_date(text) -%}
not ({{ text }} ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$')
{%- endmacro %}

{#- accepted_text: the trimmed value (lower-cased with `lowercase`) is one of `values`. -#}
{% test accepted_text(model, column_name, values, lowercase=false) %}
{%- set text = incentives._input_text(column_name) -%}
{%- set compared = 'lower(' ~ text ~ ')' if lowercase else text -%}
{%- set listed = [] -%}
{%- for value in values %}{% do listed.append("'" ~ value ~ "'") %}{% endfor -%}
{{ incentives._failing_rows(model, column_name,
     text ~ ' is not null and ' ~ compared ~ ' not in (' ~ listed | join(', ') ~ ')') }}
{% endtest %}

{#- unique_text: every row whose trimmed value another row has too. -#}
{% test unique_text(model, column_name) %}
{%- set text = incentives._input_text(column_name) -%}
{{ incentives._failing_rows(model, column_name,
     text ~ ' in (' ~ incentives._repeated_values(model, text) ~ ')') }}
{% endtest %}

{#- A query: the values of the expression `text` over `model` that occur more than once. -#}
{% macro _repeated_values(model, text) %}{{ return(adapter.dispatch('_repeated_values', 'incentives')(model, text)) }}{% endmacro %}
{% macro default___repeated_values(model, text) -%}
select {{ text }} from {{ model }} group by {{ text }} having count(*) > 1
{%- endmacro %}
{#- DuckDB: sorting and comparing each value with the one before it costs about half of grouping
    millions of distinct values (once per repeat). -#}
{% macro duckdb___repeated_values(model, text) -%}
select v from (select v, lag(v) over (order by v) as previous from (select {{ text }} as v from {{ model }})) where v = previous
{%- endmacro %}

{#- one_value_per_key: every row of a key listed with different values (a SKU with two brands). -#}
{% test one_value_per_key(model, column_name, value_column) %}
{%- set text = incentives._input_text(column_name) -%}
{{ incentives._failing_rows(model, column_name,
     text ~ ' in (select ' ~ text ~ ' from ' ~ model ~ ' group by ' ~ text
     ~ ' having count(distinct ' ~ incentives._input_text(value_column) ~ ') > 1)') }}
{% endtest %}

{#- required_when: the value is required on the rows whose `when_column` is `when_value` (trimmed,
    any case): an entity-level property needs an entity_id. -#}
{% test required_when(model, column_name, when_column, when_value) %}
{{ incentives._failing_rows(model, column_name,
     'lower(' ~ incentives._input_text(when_column) ~ ") = '" ~ when_value ~ "' and "
     ~ incentives._input_text(column_name) ~ ' is null') }}
{% endtest %}

{#- ends_after_start: a period whose end_date is before its start_date (shown: start .. end). -#}
{% test ends_after_start(model, column_name, start_column) %}
{%- set shown = dbt.concat(['cast(' ~ start_column ~ ' as ' ~ dbt.type_string() ~ ')', "' .. '",
                            'cast(' ~ column_name ~ ' as ' ~ dbt.type_string() ~ ')']) -%}
{{ incentives._failing_rows(model, shown,
     incentives._as_date(column_name) ~ ' < ' ~ incentives._as_date(start_column)) }}
{% endtest %}

{#- The value as a date, null when empty or not a date (is_date reports those). -#}
{% macro _as_date(column_name) -%}
(case when {{ incentives._typed(column_name, 'date') }} then cast({{ column_name }} as date)
 when not {{ incentives._not_a_date(incentives._input_text(column_name)) }}
 then cast({{ incentives._input_text(column_name) }} as date) end)
{%- endmacro %}

{#- absent_from: every row whose trimmed value is also a value of `field` in `to` (a scenario's
    transaction_id that an actual transaction has). `to` is the large side: its values are
    matched against the model's (a hash of the few), not the model's against a hash of all of
    `to`'s. -#}
{% test absent_from(model, column_name, to, field) %}
{%- set text = incentives._input_text(column_name) -%}
{%- set other = incentives._input_text(field) -%}
{{ incentives._failing_rows(model, column_name,
     text ~ ' in (select ' ~ other ~ ' from ' ~ to ~ ' where ' ~ other ~ ' in (select ' ~ text ~ ' from ' ~ model ~ '))') }}
{% endtest %}
