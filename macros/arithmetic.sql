{#- Exact decimal arithmetic. Rounding is half away from zero everywhere. -#}

{#- round_half_away(expr, scale): a decimal rounded to `scale` places. -#}
{% macro round_half_away(expr, scale) %}{{ return(adapter.dispatch('round_half_away', 'incentives')(expr, scale)) }}{% endmacro %}
{% macro default__round_half_away(expr, scale) -%}
cast(round({{ expr }}, {{ scale }}) as decimal(38,{{ scale }}))
{%- endmacro %}

{#- divide(numerator, denominator, scale): numerator / denominator as decimal(38, scale), rounded
    half away from zero; null when the denominator is 0. Operands are first rounded to 12 places. -#}
{% macro divide(numerator, denominator, scale) %}{{ return(adapter.dispatch('divide', 'incentives')(numerator, denominator, scale)) }}{% endmacro %}

{% macro default__divide(numerator, denominator, scale) -%}
(case when cast({{ denominator }} as decimal(38,12)) = 0 then null
 else cast(round(cast({{ numerator }} as decimal(38,12)) / cast({{ denominator }} as decimal(38,12)), {{ scale }}) as decimal(38,{{ scale }})) end)
{%- endmacro %}

{#- DuckDB divides decimals in DOUBLE, so divide exactly on 128-bit integers instead. -#}
{% macro duckdb__divide(numerator, denominator, scale) -%}
{%- set n = "cast(cast(" ~ numerator ~ " as decimal(38,12)) * 1000000000000 as hugeint)" -%}
{%- set d = "cast(cast(" ~ denominator ~ " as decimal(38,12)) * 1000000000000 as hugeint)" -%}
{%- set unit = "0." ~ ("0" * (scale - 1)) ~ "1" if scale > 0 else "1" -%}
(case when {{ d }} = 0 then null
 else cast(
   sign({{ n }}) * sign({{ d }})
   * ((abs({{ n }}) * cast('1{{ "0" * scale }}' as hugeint) * 2 + abs({{ d }})) // (2 * abs({{ d }})))
   as decimal(38,0)) * {{ unit }} end)
{%- endmacro %}

{#- safe_to_decimal(text_expr): the text as a measure, or null when it is not a number. -#}
{% macro safe_to_decimal(expr) %}{{ return(adapter.dispatch('safe_to_decimal', 'incentives')(expr)) }}{% endmacro %}
{% macro default__safe_to_decimal(expr) -%}
(case when trim({{ expr }}) ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?$'
 then cast(trim({{ expr }}) as {{ incentives.type_measure() }}) end)
{%- endmacro %}
{% macro duckdb__safe_to_decimal(expr) -%}
(case when regexp_full_match(trim({{ expr }}), '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?')
 then try_cast(trim({{ expr }}) as {{ incentives.type_measure() }}) end)
{%- endmacro %}
{% macro spark__safe_to_decimal(expr) -%}
try_cast(trim({{ expr }}) as {{ incentives.type_measure() }})
{%- endmacro %}

{#- to_boolean_number(text_expr): 1 for true/1, 0 for false/0 (any case), else null. -#}
{% macro to_boolean_number(expr) -%}
(case lower(trim({{ expr }})) when 'true' then 1 when '1' then 1 when 'false' then 0 when '0' then 0 end)
{%- endmacro %}

{#- compare(operator_column, actual, target): the qualification operators, exactly. -#}
{% macro compare(operator, actual, target) -%}
(case {{ operator }}
  when 'greater_than_or_equal_to' then {{ actual }} >= {{ target }}
  when 'greater_than' then {{ actual }} > {{ target }}
  when 'less_than_or_equal_to' then {{ actual }} <= {{ target }}
  when 'less_than' then {{ actual }} < {{ target }}
  when 'equal_to' then {{ actual }} = {{ target }}
 end)
{%- endmacro %}
