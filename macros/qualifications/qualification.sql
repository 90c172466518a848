{#- qualification(part): a CASE over qualification_type choosing each type's expression for `part`:
    one branch per type, each from its macro qualification_<type> in this folder
    (_implementations, macros/implementations.sql). `part` is actual, target (reported,
    rounded to 10 places), difference (actual - exact target, rounded once), met_when, and the two
    sides `met` compares exactly, compare_actual and compare_target (a ratio type compares
    actual x 100 with denominator x value instead of actual with its rounded target), both as
    DECIMAL(38,20) so that no branch narrows the CASE (products of two 10-place operands are exact
    there). A type that leaves out difference or the compare sides gets actual - target and
    actual, target. The expressions read the columns of int_incentives__qualification_measures' `measured`
    CTE. -#}
{% macro qualification(part) -%}
(case qualification_type
{%- for name, expressions in incentives._implementations('qualification_', 'qualifications', 'qualification_type') %}
  {%- set defaults = {'difference': '(' ~ expressions['actual'] ~ ') - (' ~ expressions['target'] ~ ')',
                      'compare_actual': expressions['actual'], 'compare_target': expressions['target']} %}
  {%- set expression = expressions.get(part, defaults.get(part)) %}
  {%- if part == 'met_when' %}
  when '{{ name }}' then {{ expression }}
  {%- elif part in ('compare_actual', 'compare_target') %}
  when '{{ name }}' then cast({{ expression }} as decimal(38,20))
  {%- else %}
  when '{{ name }}' then {{ incentives.cast_measure(expression) }}
  {%- endif %}
{%- endfor %}
 end)
{%- endmacro %}
