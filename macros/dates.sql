{#- Calendar arithmetic on dates, as dates (dbt's dateadd returns timestamps, and on Spark goes
    through Unix time). add_years keeps the day of the month, or the last day of a shorter month
    (29 February -> 28 February); add_days adds a whole number of days (an integer expression). -#}

{% macro add_years(date, years) %}{{ return(adapter.dispatch('add_years', 'incentives')(date, years)) }}{% endmacro %}
{% macro default__add_years(date, years) -%}
cast({{ date }} + interval '1 year' * ({{ years }}) as date)
{%- endmacro %}
{% macro duckdb__add_years(date, years) -%}
cast({{ date }} + to_years(cast({{ years }} as integer)) as date)
{%- endmacro %}
{% macro spark__add_years(date, years) -%}
add_months({{ date }}, 12 * ({{ years }}))
{%- endmacro %}

{% macro add_days(date, days) %}{{ return(adapter.dispatch('add_days', 'incentives')(date, days)) }}{% endmacro %}
{% macro default__add_days(date, days) -%}
cast({{ date }} + cast({{ days }} as integer) as date)
{%- endmacro %}
{% macro duckdb__add_days(date, days) -%}
cast({{ date }} + to_days(cast({{ days }} as integer)) as date)
{%- endmacro %}
{% macro spark__add_days(date, days) -%}
date_add({{ date }}, cast({{ days }} as int))
{%- endmacro %}

{#- days_between(start, end): end - start in days, an integer. -#}
{% macro days_between(start, end) %}{{ return(adapter.dispatch('days_between', 'incentives')(start, end)) }}{% endmacro %}
{% macro default__days_between(start, end) -%}
cast({{ end }} - {{ start }} as integer)
{%- endmacro %}
{% macro duckdb__days_between(start, end) -%}
cast(date_diff('day', {{ start }}, {{ end }}) as integer)
{%- endmacro %}
{% macro spark__days_between(start, end) -%}
datediff({{ end }}, {{ start }})
{%- endmacro %}
