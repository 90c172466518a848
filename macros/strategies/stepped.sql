{#- Private CTE body of the stepped strategy, shared by int_stepped_thresholds and
    int_earnings_stepped (models/intermediate/stepped/). -#}

{#- _tier_thresholds(values, keys, tiers, next=false): per row of `values` (its `keys` columns, an
    offer_key and a threshold_value), the threshold of the highest tier in `tiers` of the offer
    whose threshold is <= the value (the tier reached), or with `next` of the lowest tier whose
    threshold is > the value (the next tier), as tier_threshold; no row when there is no such tier.
    Tiers are unique per offer and threshold (the compiler rejects duplicates), so the threshold
    names the tier. -#}
{% macro _tier_thresholds(values, keys, tiers, next=false) -%}
    select
        {%- for key in keys %}
        {{ values }}.{{ key }},
        {%- endfor %}
        {{ 'min' if next else 'max' }}({{ tiers }}.threshold) as tier_threshold
    from {{ values }}
    inner join {{ tiers }}
        on {{ tiers }}.offer_key = {{ values }}.offer_key
        and {{ tiers }}.threshold {{ '>' if next else '<=' }} {{ values }}.threshold_value
    group by {% for key in keys %}{{ values }}.{{ key }}{{ ', ' if not loop.last }}{% endfor %}
{%- endmacro %}
