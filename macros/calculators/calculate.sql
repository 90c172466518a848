{#- calculate(part, calculators): a CASE over offer_calculator choosing each calculator's expression
    for `part` (pay_rate, incentive or contribution): one branch per calculator, each from its
    macro calculator_<name> in this folder (_implementations, macros/implementations.sql); only
    those named in `calculators` when given (null for the others). Every branch is cast to the
    output type, so a CASE never narrows a decimal's scale. The list of calculators is fixed, not
    per program. -#}
{% macro calculate(part, calculators=none) -%}
(case offer_calculator
{%- for name, expressions in incentives._implementations('calculator_', 'offers', 'calculator_key') if calculators is none or name in calculators %}
  when '{{ name }}' then {{ incentives.cast_money(expressions[part]) if part == 'incentive' else incentives.cast_measure(expressions[part]) }}
{%- endfor %}
 end)
{%- endmacro %}
