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

{#- _filter_key_matches(sku_rows, any_sku_rows, keys, columns, on_entity): the rows matching a
    compiled filter key of `keys` (sku_key, transaction_type, bucket_id): a SKU key on SKU, type
    and bucket, an any-SKU key (null sku_key) on type and bucket. The keys of a filter never
    overlap, so a row matches each filter at most once. `sku_rows` and `any_sku_rows` are the
    same rows through two import CTEs (DuckDB materializes a CTE that is read twice); `columns`
    select from `keys` and `matched_rows`; with `on_entity`, the keys carry an entity_id that the
    rows must have too. -#}
{% macro _filter_key_matches(sku_rows, any_sku_rows, keys, columns, on_entity=false) -%}
{%- for rows in [sku_rows, any_sku_rows] %}
    {%- if not loop.first %}
    union all
    {%- endif %}
    select {{ columns }}
    from {{ rows }} as matched_rows
    inner join {{ keys }}
        on {{ keys }}.transaction_type = matched_rows.transaction_type
        and {{ keys }}.bucket_id = matched_rows.bucket_id
        {%- if on_entity %}
        and {{ keys }}.entity_id = matched_rows.entity_id
        {%- endif %}
        {%- if loop.first %}
        and {{ keys }}.sku_key = matched_rows.sku_key
        {%- else %}
    where {{ keys }}.sku_key is null
        {%- endif %}
{%- endfor %}
{%- endmacro %}

{#- _tier_thresholds(values, keys, next=false): per row of `values` (its `keys` columns, an
    offer_key and a threshold_value), the threshold of the highest stepped tier of the offer whose
    threshold is <= the value (the tier reached), or with `next` of the lowest tier whose threshold
    is > the value (the next tier), as tier_threshold; no row when there is no such tier. Tiers are
    unique per offer and threshold (the compiler rejects duplicates), so the threshold names the
    tier. Reads the CTE `tiers`. -#}
{% macro _tier_thresholds(values, keys, next=false) -%}
    select
        {%- for key in keys %}
        {{ values }}.{{ key }},
        {%- endfor %}
        {{ 'min' if next else 'max' }}(tiers.threshold) as tier_threshold
    from {{ values }}
    inner join tiers
        on tiers.offer_key = {{ values }}.offer_key
        and tiers.threshold {{ '>' if next else '<=' }} {{ values }}.threshold_value
    group by {% for key in keys %}{{ values }}.{{ key }}{{ ', ' if not loop.last }}{% endfor %}
{%- endmacro %}
