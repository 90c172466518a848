{#- Exact decimal arithmetic. Rounding is half away from zero everywhere. -#}

{#- round_half_away(expr, scale): a decimal rounded to `scale` places. -#}
{% macro round_half_away(expr, scale) %}{{ return(adapter.dispatch('round_half_away', 'incentives')(expr, scale)) }}{% endmacro %}
{% macro default__round_half_away(expr, scale) -%}
cast(round({{ expr }}, {{ scale }}) as decimal(38,{{ scale }}))
{%- endmacro %}

{#- round_product(a, b, scale, shift): a x b x 10^shift rounded half away from zero to `scale`
    places, as decimal(38, scale) (shift -2: a percentage). -#}
{% macro round_product(a, b, scale, shift=0) %}{{ return(adapter.dispatch('round_product', 'incentives')(a, b, scale, shift)) }}{% endmacro %}

{% macro default__round_product(a, b, scale, shift=0) -%}
{%- set factor = (" * 0." ~ ("0" * (-shift - 1)) ~ "1") if shift < 0 else ((" * 1" ~ ("0" * shift)) if shift > 0 else "") -%}
{{ incentives.round_half_away("cast(" ~ a ~ " as decimal(38,10)) * " ~ b ~ factor, scale) }}
{%- endmacro %}

{#- DuckDB multiplies DECIMAL(38,x) on 128-bit integers with overflow checks, ten times the cost of
    a double product. As in duckdb__divide: y = a x b x 10^(scale + shift) in double has a relative
    error below 7e-16 (two conversions, two products), so for |y| < 2.5e11 it is off by less than
    2e-4 units; when y is also more than 0.001 away from a rounding tie, round(y) is the exact
    result. Every other row (ties, huge products) takes the exact decimal expression. -#}
{% macro duckdb__round_product(a, b, scale, shift=0) -%}
{%- set exponent = scale + shift -%}
{%- set y = "(cast(" ~ a ~ " as double) * cast(" ~ b ~ " as double)" ~ (" * 1e" ~ exponent if exponent != 0 else "") ~ ")" -%}
{%- set unit = "0." ~ ("0" * (scale - 1)) ~ "1" if scale > 0 else "1" -%}
(case when abs({{ y }}) < 250000000000 and abs({{ y }} - floor({{ y }}) - 0.5) > 0.001
 then cast(cast(round({{ y }}) as decimal(38,0)) * {{ unit }} as decimal(38,{{ scale }}))
 else {{ incentives.default__round_product(a, b, scale, shift) }} end)
{%- endmacro %}

{#- divide(numerator, denominator, scale): numerator / denominator as decimal(38, scale), rounded
    half away from zero; null when the denominator is 0. Operands are first rounded to 12 places. -#}
{% macro divide(numerator, denominator, scale) %}{{ return(adapter.dispatch('divide', 'incentives')(numerator, denominator, scale)) }}{% endmacro %}

{% macro default__divide(numerator, denominator, scale) -%}
(case when cast({{ denominator }} as decimal(38,12)) = 0 then null
 else cast(round(cast({{ numerator }} as decimal(38,12)) / cast({{ denominator }} as decimal(38,12)), {{ scale }}) as decimal(38,{{ scale }})) end)
{%- endmacro %}

{#- DuckDB divides decimals in DOUBLE, and 128-bit integer division is slow. So: take the double
    quotient y = n / d x 10^scale when it is provably right - far from a rounding tie
    (|frac(y) - 0.5| > 0.001) and small enough that the double's error (< |y| x 4e-16) stays
    below 1e-4 units - else divide exactly on 128-bit integers (ties, huge quotients). -#}
{% macro duckdb__divide(numerator, denominator, scale) -%}
{%- set n = "cast(cast(" ~ numerator ~ " as decimal(38,12)) * 1000000000000 as hugeint)" -%}
{%- set d = "cast(cast(" ~ denominator ~ " as decimal(38,12)) * 1000000000000 as hugeint)" -%}
{%- set unit = "0." ~ ("0" * (scale - 1)) ~ "1" if scale > 0 else "1" -%}
{%- set y = "(cast(" ~ numerator ~ " as double) / cast(" ~ denominator ~ " as double) * 1e" ~ scale ~ ")" -%}
(case when cast({{ denominator }} as decimal(38,12)) = 0 then null
 when abs({{ y }}) < 250000000000 and abs({{ y }} - floor({{ y }}) - 0.5) > 0.001
 then cast(round({{ y }}) as decimal(38,0)) * {{ unit }}
 else cast(
   sign({{ n }}) * sign({{ d }})
   * ((abs({{ n }}) * cast('1{{ "0" * scale }}' as hugeint) * 2 + abs({{ d }})) // (2 * abs({{ d }})))
   as decimal(38,0)) * {{ unit }} end)
{%- endmacro %}

{#- PostgreSQL's numeric division keeps only about 16 significant digits, so divide exactly with
    div() (integer quotient of arbitrary-precision numerics) instead; the power of ten is applied by
    a multiplication, which is exact. The cast outside the CASE gives the column its declared type. -#}
{% macro postgres__divide(numerator, denominator, scale) -%}
{%- set n = "cast(" ~ numerator ~ " as decimal(38,12))" -%}
{%- set d = "cast(" ~ denominator ~ " as decimal(38,12))" -%}
{%- set unit = "0." ~ ("0" * (scale - 1)) ~ "1" if scale > 0 else "1" -%}
cast(case when {{ d }} = 0 then null
 else sign({{ n }}) * sign({{ d }})
   * div(abs({{ n }}) * 1{{ "0" * scale }} * 2 + abs({{ d }}), 2 * abs({{ d }}))
   * {{ unit }} end as decimal(38,{{ scale }}))
{%- endmacro %}

{#- Spark rounds a decimal quotient to at most 38 digits (scale 18 for these operands), so
    round(n / d, scale) could round twice. Instead, with a = |n| x 10^scale and b = |d|: the
    remainder r = a % b is exact, (a - r) / b is an exact integer, and it is rounded up when
    2r >= b. Every intermediate fits DECIMAL(38, x) for |n| < 10^(26 - scale) and quotients
    below 10^(20 - scale); beyond that Spark (ANSI mode) fails the build, it never returns a wrong
    or null result. -#}
{% macro spark__divide(numerator, denominator, scale) -%}
{%- set n = "cast(" ~ numerator ~ " as decimal(38,12))" -%}
{%- set d = "cast(" ~ denominator ~ " as decimal(38,12))" -%}
{%- set a = "(abs(" ~ n ~ ") * cast(1" ~ ("0" * scale) ~ " as decimal(" ~ (scale + 1) ~ ",0)))" -%}
{%- set b = "abs(" ~ d ~ ")" -%}
{%- set r = "(" ~ a ~ " % " ~ b ~ ")" -%}
{%- set unit = "0." ~ ("0" * (scale - 1)) ~ "1" if scale > 0 else "1" -%}
{%- set q = "(cast((" ~ a ~ " - " ~ r ~ ") / " ~ b ~ " as decimal(38,0)) + case when " ~ r ~ " * 2 >= " ~ b ~ " then 1 else 0 end)" -%}
(case when {{ d }} = 0 then null
 else cast(
   (case when ({{ n }} < 0) <> ({{ d }} < 0) then -{{ q }} else {{ q }} end) * {{ unit }}
   as decimal(38,{{ scale }})) end)
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
{#- PostgreSQL has no try_cast: the cast runs only on a number that fits DECIMAL(38,10) (an
    exponent of at most 3 digits keeps numeric itself from overflowing). -#}
{% macro postgres__safe_to_decimal(expr) -%}
(case when trim({{ expr }}) ~ '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]{1,3})?$'
 then (case when abs(round(cast(trim({{ expr }}) as numeric), 10)) < 1e28
       then cast(trim({{ expr }}) as {{ incentives.type_measure() }}) end) end)
{%- endmacro %}
{#- Spark's cast accepts more spellings (surrounding whitespace, trailing newline), so check the
    same pattern as DuckDB first (\z is the very end: Java's $ also matches before a newline). -#}
{% macro spark__safe_to_decimal(expr) -%}
(case when trim({{ expr }}) rlike '^[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?\\z'
 then try_cast(trim({{ expr }}) as {{ incentives.type_measure() }}) end)
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
