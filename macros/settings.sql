{#- The package's vars, declared once: each var's name (every one prefixed `incentives_`), the name
    it had before (CHANGELOG.md) and its default. The former names are still read, until the next
    version, with a deprecation warning on each build (warn_deprecated_vars, the package's
    on-run-start hook).
    The vars without a former name (incentives_database, incentives_<input>_database / _schema /
    _identifier, incentives_transaction_passthrough_columns, incentives_unit_tests) are read with
    var() as they are. dbt renders the sources' YAML without macros, so the source YAMLs of
    models/staging/ read `incentives_input_schema` and `incentives_using_<input>` with the same
    fallback written out: var('incentives_x', var('x', default)). -#}
{% macro _renamed_vars() -%}
{{ return({
    'incentives_input_schema': ('input_schema', 'raw'),
    'incentives_using_properties': ('using_properties', true),
    'incentives_using_waivers': ('using_waivers', true),
    'incentives_using_prices': ('using_prices', true),
    'incentives_using_enrollments': ('using_enrollments', true),
    'incentives_run_id': ('run_id', none),
    'incentives_run_context': ('run_context', false),
    'incentives_build_schema': ('build_schema', none),
}) }}
{%- endmacro %}

{#- setting(name): the value of the package's var `name` (see _renamed_vars): as set, else the value
    of its former name (deprecated), else its default. A var set to null is set (null). -#}
{% macro setting(name) -%}
{%- set former, default = incentives._renamed_vars()[name] -%}
{%- if var.has_var(name) -%}
    {{- return(var(name)) -}}
{%- elif var.has_var(former) -%}
    {{- return(var(former)) -}}
{%- endif -%}
{{- return(default) -}}
{%- endmacro %}

{#- warn_deprecated_vars(): one warning per build naming the former names of the package's vars
    that are set, and the names to use instead (the package's on-run-start hook; nothing when none
    is set). Renders no SQL. -#}
{% macro warn_deprecated_vars() -%}
{%- if execute -%}
    {%- set renamed = [] -%}
    {%- for name, former_and_default in incentives._renamed_vars().items() if var.has_var(former_and_default[0]) -%}
        {%- do renamed.append(former_and_default[0] ~ ' -> ' ~ name) -%}
    {%- endfor -%}
    {%- if renamed -%}
        {%- do exceptions.warn("incentives: the vars " ~ renamed | join(', ')
            ~ " were renamed (every var of the package starts with incentives_); the former names are"
            ~ " still read in this version and will not be in the next: set the new ones (CHANGELOG.md)") -%}
    {%- endif -%}
{%- endif -%}
{%- endmacro %}

{#- using_scenarios(): whether scenario participants are evaluated: either scenario input is on
    (`incentives_using_scenarios`, `incentives_using_scenario_properties`), or the forecast, a
    scenario the engine generates (`incentives_using_forecast`); all default false (new vars,
    without a former name). Off, the models' SQL is what it was before scenarios. -#}
{% macro using_scenarios() -%}
{{- return(var('incentives_using_scenarios', false) or var('incentives_using_scenario_properties', false)
           or incentives.using_forecast()) -}}
{%- endmacro %}

{#- using_forecast(): whether the season-end forecast is computed (`incentives_using_forecast`,
    default false; docs/forecast.md). -#}
{% macro using_forecast() -%}
{{- return(var('incentives_using_forecast', false)) -}}
{%- endmacro %}

{#- _models_built(on): whether a model that only scenarios or the forecast need is built: when `on`
    (using_scenarios(), using_forecast(), an input's var) or when the unit tests are on (their
    fixtures mock such a model as a relation, and dbt reads its columns from the database). -#}
{% macro _models_built(on) -%}
{{- return(on or var('incentives_unit_tests', false)) -}}
{%- endmacro %}

{#- materialized_when(on, materialization): how such a model is materialized: `materialization`
    when built (_models_built), else ephemeral: nothing runs it, so a build without scenarios has
    no node for it (each a statement on Spark and ~35 ms of dbt's own on every engine). Its readers
    inline it, as its empty or pass-through query (docs/scenarios.md). -#}
{% macro materialized_when(on, materialization) -%}
{{- return(materialization if incentives._models_built(on) else 'ephemeral') -}}
{%- endmacro %}

{#- scenario_models_built(): whether the scenario models are built: scenarios or the forecast are
    on, or the unit tests. Off, the scenario marts are their contract's columns without rows
    (_no_rows_of_contract), and forecast_models_built() likewise for the forecast. -#}
{% macro scenario_models_built() -%}
{{- return(incentives._models_built(incentives.using_scenarios())) -}}
{%- endmacro %}

{#- forecast_models_built(): whether the forecast's models are built: the forecast is on, or the
    unit tests. -#}
{% macro forecast_models_built() -%}
{{- return(incentives._models_built(incentives.using_forecast())) -}}
{%- endmacro %}
