{#- dbt's default schema naming (<target schema>, <target schema>_<custom schema>), except that the
    var `build_schema` replaces the target's schema: `incentives run --target postgres|spark` builds
    into `<schema>__building` and swaps it in only when everything succeeded. -#}
{% macro generate_schema_name(custom_schema_name, node) -%}
    {%- set base = var('build_schema', none) or target.schema -%}
    {%- if custom_schema_name is none -%}
        {{ base }}
    {%- else -%}
        {{ base }}_{{ custom_schema_name | trim }}
    {%- endif -%}
{%- endmacro %}
