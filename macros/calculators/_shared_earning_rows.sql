{#- _shared_earning_rows(unshared, shared, share_by): the earning rows of two relations with the
    same columns, plus share_total: null for `unshared`; for `shared` (fixed_amount) the sum of
    value over `share_by`, keeping only rows whose total is > 0. The window runs over the (few)
    fixed_amount rows only, not over every earning row. Used by the standard and stepped
    strategies. -#}
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
