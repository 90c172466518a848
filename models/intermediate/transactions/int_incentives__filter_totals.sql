-- Net quantity and value (as `amount`) per participant x filter group: the per-SKU rows of
-- int_incentives__filter_sku_totals summed once, read by the qualification measures (filter, numerator and
-- denominator totals) and the stepped thresholds.
with sku_totals as (
    select * from {{ ref('incentives', 'int_incentives__filter_sku_totals') }}
),

final as (
    select
        filter_id,
        entity_id,
        sum(quantity) as quantity,
        sum(value) as amount
    from sku_totals
    group by filter_id, entity_id
)

select * from final
