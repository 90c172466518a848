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

{#- qualification(part): the same over qualification_type for `part` (actual, target, met_when). -#}
{% macro qualification(part) -%}
(case qualification_type
{%- for name in ['aggregated_amount', 'aggregated_quantity', 'brand_count', 'share_of_wallet_percent',
                 'yoy_amount_index', 'yoy_quantity_index', 'amount_average_index', 'property'] %}
  {%- set expressions = context['incentives']['qualification_' ~ name]() %}
  when '{{ name }}' then {{ expressions[part] if part == 'met_when' else incentives.cast_measure(expressions[part]) }}
{%- endfor %}
 end)
{%- endmacro %}
