-- brand_count: per participant x qualification, the distinct brands whose net matching quantity
-- is > 0 (excluded SKUs dropped, only listed brands when a list is given, SKUs missing from the
-- catalogue have no brand).
with qualifications as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualifications') }} where qualification_type = 'brand_count'
),

sku_totals as (
    select * from {{ ref('incentives', 'int_incentives__filter_sku_totals') }}
),

products as (
    select * from {{ ref('incentives', 'stg_incentives__products') }}
),

brand_rules as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualification_brand_rules') }}
),

excluded_skus as (
    select qualification_id, rule_key as sku_key from brand_rules where rule = 'excluded_sku'
),

listed_brands as (
    select qualification_id, rule_key as brand_key from brand_rules where rule = 'brand'
),

brand_quantities as (
    select
        qualifications.qualification_id,
        sku_totals.entity_id,
        products.brand_key,
        sum(sku_totals.quantity) as net_quantity
    from qualifications
    inner join sku_totals on sku_totals.filter_id = qualifications.filter_id
    inner join products on products.sku_key = sku_totals.sku_key
    left join excluded_skus
        on excluded_skus.qualification_id = qualifications.qualification_id
        and excluded_skus.sku_key = sku_totals.sku_key
    left join listed_brands
        on listed_brands.qualification_id = qualifications.qualification_id
        and listed_brands.brand_key = products.brand_key
    where excluded_skus.sku_key is null
        and products.brand_key is not null
        and (not qualifications.has_brand_list or listed_brands.brand_key is not null)
    group by qualifications.qualification_id, sku_totals.entity_id, products.brand_key
),

final as (
    select
        qualification_id,
        entity_id,
        count(*) as brand_count
    from brand_quantities
    where net_quantity > 0
    group by qualification_id, entity_id
)

select * from final
