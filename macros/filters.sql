{#- Private helpers of the filters (compiled into stg_incentives__rules_filter_keys): CTE bodies over the
    relations they are given. -#}

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

{#- _program_filters(qualifications, offers, earning=false): the CTE body of the (program_key,
    filter_id) pairs of every filter a program reads: its qualifications' filters (numerator and
    denominator of the ratio types), its stepped offers' threshold filters and, with `earning`,
    their earning filters. -#}
{% macro _program_filters(qualifications, offers, earning=false) -%}
    select program_key, filter_id from {{ qualifications }} where filter_id is not null
    union
    select program_key, numerator_filter_id from {{ qualifications }} where numerator_filter_id is not null
    union
    select program_key, denominator_filter_id from {{ qualifications }} where denominator_filter_id is not null
    union
    select program_key, threshold_filter_id from {{ offers }} where threshold_filter_id is not null
    {%- if earning %}
    union
    select program_key, earning_filter_id from {{ offers }} where earning_filter_id is not null
    {%- endif %}
{%- endmacro %}
