{#- The two sides of an evaluation's rows (docs/scenarios.md). A scenario participant
    (int_incentives__scenario_participants, `scenario_participants`) is evaluated by the same
    models as an actual one; the baseline marts keep the actual participants' rows, the scenario
    marts the scenario participants'. Without scenarios (using_scenarios() false) every row is an
    actual participant's and the baseline marts' SQL has no filter. -#}

{#- _actual_participant(entity_id, scenario_participants): a predicate, true on the rows of an actual
    participant (`entity_id` is not a scenario participant's id). -#}
{% macro _actual_participant(entity_id, scenario_participants) -%}
{%- if incentives.using_scenarios() -%}
{{ entity_id }} not in (select evaluation_entity_id from {{ scenario_participants }})
{%- else -%}
1 = 1
{%- endif -%}
{%- endmacro %}
