{#- A generic data test: the combination of `columns` is unique (no package needed). Returns the
    duplicated combinations with their row count. `latest_by` (a column): only the rows with its
    greatest value, those a build appended to a table that keeps earlier builds' rows (each build's
    rows are tested when they are appended; offer_results_history, where the run id is part of
    the key, would otherwise read every earlier run's rows on every run). -#}
{% test unique_combination(model, columns, latest_by=none) %}
    {%- set rows = model if latest_by is none else
        "(select * from " ~ model ~ " where " ~ latest_by ~ " = (select max(" ~ latest_by ~ ") from " ~ model ~ ")) latest_rows" -%}
    {{ return(adapter.dispatch('test_unique_combination', 'incentives')(rows, columns)) }}
{% endtest %}

{% macro default__test_unique_combination(model, columns) %}
select {{ columns | join(', ') }}, count(*) as rows_per_key
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endmacro %}

{#- DuckDB: group one 64-bit hash of the combination first (a third of the time of grouping the
    text columns on a table of millions of rows), then group the columns exactly, only for the
    hashes seen more than once. Equal combinations hash alike, so no duplicate is missed, and a
    hash collision alone returns no row. -#}
{% macro duckdb__test_unique_combination(model, columns) %}
{%- set key = "hash(" ~ (columns | join(', ')) ~ ")" -%}
with repeated_hashes as (
    select {{ key }} as key_hash
    from {{ model }}
    group by 1
    having count(*) > 1
)

select {{ columns | join(', ') }}, count(*) as rows_per_key
from {{ model }}
where {{ key }} in (select key_hash from repeated_hashes)
group by {{ columns | join(', ') }}
having count(*) > 1
{% endmacro %}
