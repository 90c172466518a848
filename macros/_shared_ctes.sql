{#- Private helpers: CTE bodies that several models need over their own refs (kept as macros,
    not models, so each model's inputs and unit tests stay as they are). -#}

{#- _filter_totals(sku_totals): net quantity and value (as `amount`) per filter group x participant. -#}
{% macro _filter_totals(sku_totals) -%}
    select filter_id, entity_id, sum(quantity) as quantity, sum(value) as amount
    from {{ sku_totals }}
    group by filter_id, entity_id
{%- endmacro %}

{#- _request_default_properties(properties): the request-level rows with empty entity_id, per key. -#}
{% macro _request_default_properties(properties) -%}
    select property_key, {{ incentives.min_text('property_value') }} as property_value
    from {{ properties }}
    where level = 'request' and entity_id is null and transaction_id is null
    group by property_key
{%- endmacro %}
