{#- qualification(part, measure): a CASE over qualification_type choosing each type's expression for
    `part`: one branch per type of the measure `measure` (every type when none), each from its macro
    qualification_<type> in this folder (_implementations, macros/implementations.sql). `part` is
    actual, target (reported, rounded to 10 places), difference (actual - exact target, rounded
    once), met_when, and the two sides `met` compares exactly, compare_actual and compare_target (a
    ratio type compares actual x 100 with denominator x value instead of actual with its rounded
    target), both as DECIMAL(38,20) so that no branch narrows the CASE (products of two 10-place
    operands are exact there). A type that leaves out difference or the compare sides gets
    actual - target and actual, target. The expressions read the columns of the `measured` CTE of
    the measure's model, int_incentives__qualification_measures_<measure>. -#}
{% macro qualification(part, measure=none) -%}
(case qualification_type
{%- for name, expressions in incentives._implementations('qualification_', 'qualifications', 'qualification_type')
        if measure is none or expressions['measure'] == measure %}
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

{#- types_of_measure(measure): the quoted names of the qualification types whose macros name the
    measure `measure`, comma-separated (the types a measure's model evaluates). -#}
{% macro types_of_measure(measure) -%}
{%- set names = [] -%}
{%- for name, expressions in incentives._implementations('qualification_', 'qualifications', 'qualification_type')
        if expressions['measure'] == measure -%}
    {%- do names.append("'" ~ name ~ "'") -%}
{%- endfor -%}
{{ names | join(', ') if names else 'null' }}
{%- endmacro %}

{#- measures_of_types(): the measures the qualification types' macros name, sorted: one model each,
    int_incentives__qualification_measures_<measure>, unioned by int_incentives__qualification_measures. -#}
{% macro measures_of_types() -%}
{%- set found = [] -%}
{%- for name, expressions in incentives._implementations('qualification_', 'qualifications', 'qualification_type')
        if expressions['measure'] not in found -%}
    {%- do found.append(expressions['measure']) -%}
{%- endfor -%}
{{ return(found | sort) }}
{%- endmacro %}

{#- _qualifications_of_measure(evaluations, qualifications, measure): one row per participant x
    qualification of the measure's types (`types_of_measure`) of a program it is evaluated for
    (`evaluations`), with the qualification's columns: the rows a measure's model measures. Each
    relation is read in a subquery of its own: a ref that dbt renders as an aliased subquery
    (`--empty`, the unit tests' and contracts' builds) takes no second alias. -#}
{% macro _qualifications_of_measure(evaluations, qualifications, measure) -%}
select
    evaluations.entity_id,
    qualifications.*
from (select * from {{ evaluations }}) as evaluations
inner join (select * from {{ qualifications }}) as qualifications on qualifications.program_key = evaluations.program_key
where qualifications.qualification_type in ({{ incentives.types_of_measure(measure) }})
{%- endmacro %}

{#- _evaluated_qualifications(measured, measure): per row of `measured` (one per participant x
    qualification of the measure's types, with the qualification's columns and the columns the
    types' expressions read), target, actual, difference and met (before waivers), each by the
    type's macro. The query of every measure's model, so each row is evaluated the same way. -#}
{% macro _evaluated_qualifications(measured, measure) -%}
{%- set keys = ['entity_id', 'qualification_id', 'program_key', 'offer_key', 'qualification_key',
                'qualification_level', 'qualification_type', 'operator'] -%}
with evaluated as (
    select
        {{ keys | join(', ') }},
        is_boolean,
        {{ incentives.cast_measure(incentives.qualification('target', measure)) }} as target,
        {{ incentives.cast_measure(incentives.qualification('actual', measure)) }} as actual,
        case when not is_boolean then {{ incentives.qualification('difference', measure) }} end as difference,
        {{ incentives.qualification('compare_actual', measure) }} as compare_actual,
        {{ incentives.qualification('compare_target', measure) }} as compare_target,
        {{ incentives.qualification('met_when', measure) }} as met_regardless
    from {{ measured }}
)

select
    {{ keys | join(', ') }},
    target,
    actual,
    {{ incentives.cast_measure('difference') }} as difference,
    case
        when met_regardless then true
        when actual is null or target is null then false
        else coalesce({{ incentives.compare('operator', 'compare_actual', 'compare_target') }}, false)
    end as met
from evaluated
{%- endmacro %}
