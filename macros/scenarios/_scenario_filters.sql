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

{#- _scenario_participant_range(entity_id): a predicate true on every scenario participant's id
    ('~' || length || '~' ...: it starts with '~' and a digit) and on few others, which the
    engine can push below the joins of a view to its scans. A reader keeps the exact join to
    int_incentives__scenario_participants; this only spares it the actual participants' rows. On
    DuckDB a range of constants, which its optimizer carries across the equi-joins of the view
    (int_incentives__earnings read for 100 scenario participants at 10M transactions: 0.6 s
    instead of 5 s); elsewhere a prefix match (PostgreSQL compares text in the database's
    collation, where a range of punctuation is not a prefix). -#}
{% macro _scenario_participant_range(entity_id) %}{{ return(adapter.dispatch('_scenario_participant_range', 'incentives')(entity_id)) }}{% endmacro %}
{% macro default___scenario_participant_range(entity_id) -%}
{{ entity_id }} like '~%'
{%- endmacro %}
{% macro duckdb___scenario_participant_range(entity_id) -%}
({{ entity_id }} >= '~0' and {{ entity_id }} < '~:')
{%- endmacro %}
