{#- run_id(): the id of the run that built the results (var `run_id`, set by `incentives run`;
    `manual` when dbt is run by hand). Every result row carries it. -#}
{% macro run_id() -%}
cast('{{ var("run_id", "manual") }}' as {{ dbt.type_string() }})
{%- endmacro %}
