{#- calculate(part): a CASE over offer_calculator choosing each calculator's expression for `part`
    (pay_rate, incentive or contribution).
    Every branch is cast to the output type, so a CASE never narrows a decimal's scale. The list of calculators is fixed, not per program. -#}
{% macro calculate(part) -%}
(case offer_calculator
{%- for name in ['percent_of_amount', 'dollars_per_unit', 'fixed_amount', 'dollars_per_coverage_unit'] %}
  {%- set expressions = context['incentives']['calculator_' ~ name]() %}
  when '{{ name }}' then {{ incentives.cast_money(expressions[part]) if part == 'incentive' else incentives.cast_measure(expressions[part]) }}
{%- endfor %}
 end)
{%- endmacro %}

{#- qualification(part): the same over qualification_type for `part`: actual, target (reported,
    rounded to 10 places), difference (actual - exact target, rounded once), met_when, and the two
    sides `met` compares exactly, compare_actual and compare_target (a ratio type compares
    actual x 100 with denominator x value instead of actual with its rounded target), both as
    DECIMAL(38,20) so that no branch narrows the CASE (products of two 10-place operands are exact
    there). A type that leaves out difference or the compare sides gets actual - target and
    actual, target. -#}
{% macro qualification(part) -%}
(case qualification_type
{%- for name in ['aggregated_amount', 'aggregated_quantity', 'brand_count', 'share_of_wallet_percent',
                 'yoy_amount_index', 'yoy_quantity_index', 'amount_average_index', 'property'] %}
  {%- set expressions = context['incentives']['qualification_' ~ name]() %}
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
