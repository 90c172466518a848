{#- A generic data test: the combination of `columns` is unique (no package needed). Returns the
    duplicated combinations with their row count. -#}
{% test unique_combination(model, columns) %}
    {{ return(adapter.dispatch('test_unique_combination', 'incentives')(model, columns)) }}
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
