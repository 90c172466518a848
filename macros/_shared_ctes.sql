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

{#- _shared_earning_rows(unshared, shared, share_by): the earning rows of two CTEs with the same
    columns, plus share_total: null for `unshared`; for `shared` (fixed_amount) the sum of value
    over `share_by`, keeping only rows whose total is > 0. The window runs over the (few)
    fixed_amount rows only, not over every earning row. -#}
{% macro _shared_earning_rows(unshared, shared, share_by) -%}
    select {{ unshared }}.*, cast(null as {{ incentives.type_measure() }}) as share_total
    from {{ unshared }}
    union all
    select * from (
        select
            {{ shared }}.*,
            {{ incentives.cast_measure('sum(value) over (partition by ' ~ share_by ~ ')') }} as share_total
        from {{ shared }}
    ) as shares
    where share_total > 0
{%- endmacro %}
