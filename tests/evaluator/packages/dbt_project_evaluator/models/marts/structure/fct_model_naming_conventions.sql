-- all models with inappropriate (or lack of) pre-fix
-- ensure dbt project has consistent naming conventions

{% if execute %}
{% set metric_flow_time_spine_names = graph.nodes.values()
     | selectattr("resource_type", "equalto", "model") 
     | rejectattr("time_spine", "none") 
     | map(attribute = "name") 
     | join("', '")
%}
{% endif %}

with all_graph_resources as (
    select * from {{ ref('int_all_graph_resources') }}
    where is_excluded = cast(0 as {{ dbt.type_boolean() }})
    -- exclude required time spine
    {% if metric_flow_time_spine_names %}
    and resource_name not in ('{{ metric_flow_time_spine_names }}')
    {% endif %}
),

naming_convention_prefixes as (
    select * from {{ ref('stg_naming_convention_prefixes') }}
    {% if target.type not in ['fabric'] %}
    -- we order the CTE so that listagg returns values correctly sorted for some warehouses
    order by prefix_value
    {% endif %}
),

appropriate_prefixes as (
    select
        model_type,
        {{ dbt.listagg(
            measure='prefix_value',
            delimiter_text="', '",
            order_by_clause='order by prefix_value' if target.type in ['snowflake','redshift','duckdb','trino','fabric'])
        }} as appropriate_prefixes
    from naming_convention_prefixes
    group by model_type
), 

models as (
    select
        all_graph_resources.resource_name,
        all_graph_resources.prefix,
        all_graph_resources.model_type,
        naming_convention_prefixes.prefix_value
    from all_graph_resources 
    left join naming_convention_prefixes
        on all_graph_resources.model_type = naming_convention_prefixes.model_type
        and all_graph_resources.prefix = naming_convention_prefixes.prefix_value
    where resource_type = 'model'
),

inappropriate_model_names as (
    select 
        models.resource_name,
        models.prefix,
        models.model_type,
        appropriate_prefixes.appropriate_prefixes
    from models
    left join appropriate_prefixes
        on models.model_type = appropriate_prefixes.model_type
    where nullif(models.prefix_value, '') is null

)

select * from inappropriate_model_names

{{ filter_exceptions() }}
