{#- run_id(): the id of the run that built the results; every result row carries it.
    `incentives run` writes it into the one-row table `run_context` of the input schema before dbt
    and sets the var `incentives_run_context` (true on every run): the model reads the id with a
    scalar subquery, so the vars stay the same from run to run and dbt reuses its partial parse (a
    var that changed on every run would make dbt re-parse the whole project each time).
    A var `incentives_run_id` is used as given; `manual` when dbt is run by hand without either
    (the vars' former names, run_context and run_id, are still read: macros/settings.sql). -#}
{% macro run_id() -%}
{%- if incentives.setting('incentives_run_id') is not none -%}
cast('{{ incentives.setting('incentives_run_id') }}' as {{ dbt.type_string() }})
{%- elif incentives.setting('incentives_run_context') -%}
(select cast(max(run_id) as {{ dbt.type_string() }}) from {{ incentives.run_context() }})
{%- else -%}
cast('manual' as {{ dbt.type_string() }})
{%- endif -%}
{%- endmacro %}

{#- run_context(): the one-row table `run_context` of the input schema that `incentives run` writes
    (when the var incentives_run_context is true): the run id, and the forecast's dates `as_of` and
    `forecast_until` (null when not given; models/intermediate/forecast/). -#}
{% macro run_context() -%}
{{ incentives.setting('incentives_input_schema') }}.run_context
{%- endmacro %}
