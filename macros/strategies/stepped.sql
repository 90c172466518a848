{#- Private queries of the stepped strategy, shared by int_incentives__stepped_thresholds,
    int_incentives__earnings_stepped and int_incentives__offer_opportunities (models/intermediate/). -#}

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

{#- _stepped_earning_rows(pairs, offers, tiers, filter_keys, buckets, thresholds, properties,
    transactions): the earning rows of the stepped offers of `pairs` (entity_id, offer_key,
    calculator_key). The threshold value of `thresholds` (int_incentives__stepped_thresholds: aggregated amount
    / quantity over the threshold filters, or a property) picks the highest tier of `tiers` whose
    threshold <= value; that tier pays every earning transaction (the offer's earning filter in
    `filter_keys`, a union; `buckets` says which keys a participant has transactions for). A
    transaction-level property of `properties` picks a tier per transaction. fixed_amount shares
    the tier total over all earning transactions by value. Below the lowest tier the earning
    transactions are kept with a null tier (the next tier is priced on them; int_incentives__earnings
    keeps only rows with a rate). One query (its CTE names start with `stepped_`). -#}
{% macro _stepped_earning_rows(pairs, offers, tiers, filter_keys, buckets, thresholds, properties, transactions) -%}
with stepped_offers as (
    select * from {{ offers }} where strategy_key = 'stepped'
),

stepped_tiers as (
    select * from {{ tiers }}
),

stepped_filter_keys as (
    select * from {{ filter_keys }}
),

stepped_bucket_rows as (
    select * from {{ buckets }}
),

stepped_thresholds as (
    select * from {{ thresholds }}
),

stepped_properties as (
    select * from {{ properties }}
),

stepped_sku_transactions as (
    select * from {{ transactions }}
),

stepped_any_sku_transactions as (
    -- the transactions once per join: a CTE read twice is materialized (10M rows)
    select * from {{ transactions }}
),

stepped_transaction_properties as (
    select transaction_id, property_key, {{ incentives.min_text('property_value') }} as property_value
    from stepped_properties
    where level = 'transaction' and transaction_id is not null
    group by transaction_id, property_key
),

stepped_scope as (
    select
        {{ pairs }}.entity_id, {{ pairs }}.calculator_key, stepped_offers.program_key,
        stepped_offers.offer_key, stepped_offers.strategy_key, stepped_offers.threshold_type,
        stepped_offers.threshold_property_key, stepped_offers.threshold_property_level,
        stepped_offers.earning_filter_id,
        stepped_offers.threshold_type = 'property' and stepped_offers.threshold_property_level = 'transaction'
            as per_transaction,
        {{ pairs }}.calculator_key = 'fixed_amount' as is_shared,
        row_number() over (order by {{ pairs }}.entity_id, stepped_offers.offer_key) as scope_id
    from {{ pairs }}
    inner join stepped_offers on stepped_offers.offer_key = {{ pairs }}.offer_key
),

stepped_participant_tiers as (
    -- the tier is chosen once per participant x offer (or per transaction below), not per earning row
    {{ incentives._tier_thresholds('stepped_thresholds', ['entity_id', 'offer_key'], 'stepped_tiers') }}
),

stepped_transaction_values as (
    select
        stepped_transaction_properties.transaction_id,
        stepped_offers.offer_key,
        {{ incentives.safe_to_decimal('stepped_transaction_properties.property_value') }} as threshold_value
    from stepped_offers
    inner join stepped_transaction_properties
        on stepped_transaction_properties.property_key = stepped_offers.threshold_property_key
    where stepped_offers.threshold_type = 'property' and stepped_offers.threshold_property_level = 'transaction'
),

stepped_transaction_tiers as (
    {{ incentives._tier_thresholds('stepped_transaction_values', ['transaction_id', 'offer_key'], 'stepped_tiers') }}
),

stepped_earning_filter_keys as (
    -- the keys of the stepped offers' earning filters (the filter keys of every other filter
    -- would meet the bucket rows below for nothing). A join, not `in (select ...)`: on literal
    -- rows (a unit test's fixtures) Spark 4.3 folds that semi join into a broadcast nested loop
    -- join over a union, whose task then fails to deserialize (ClassCastException on
    -- UnionExec.children) with adaptive execution and whole-stage code generation on.
    select stepped_filter_keys.*
    from stepped_filter_keys
    inner join (select distinct earning_filter_id from stepped_offers) as earning_filters
        on earning_filters.earning_filter_id = stepped_filter_keys.filter_id
),

stepped_earning_keys as (
    -- narrow build side (the transactions below carry their own columns through the join), only
    -- the keys a participant has transactions for: a SKU key from the participant's bucket rows
    -- (rows of keys it has, joined to its pairs: without enrollments every participant x offer
    -- is a pair, and the pairs x keys would be hundreds of millions of rows), an any-SKU key from
    -- the pairs
    select stepped_scope.scope_id, stepped_scope.is_shared, stepped_scope.entity_id,
        stepped_filter_keys.sku_key, stepped_filter_keys.transaction_type, stepped_filter_keys.bucket_id
    from stepped_bucket_rows
    inner join stepped_earning_filter_keys as stepped_filter_keys
        on stepped_filter_keys.sku_key = stepped_bucket_rows.sku_key
        and stepped_filter_keys.transaction_type = stepped_bucket_rows.transaction_type
        and stepped_filter_keys.bucket_id = stepped_bucket_rows.bucket_id
    inner join stepped_scope
        on stepped_scope.entity_id = stepped_bucket_rows.entity_id
        and stepped_scope.earning_filter_id = stepped_filter_keys.filter_id
    union all
    select stepped_scope.scope_id, stepped_scope.is_shared, stepped_scope.entity_id,
        stepped_filter_keys.sku_key, stepped_filter_keys.transaction_type, stepped_filter_keys.bucket_id
    from stepped_scope
    inner join stepped_filter_keys on stepped_filter_keys.filter_id = stepped_scope.earning_filter_id
    where stepped_filter_keys.sku_key is null
),

stepped_earning as (
    {{ incentives._filter_key_matches('stepped_sku_transactions', 'stepped_any_sku_transactions',
                                      'stepped_earning_keys',
                                      'stepped_earning_keys.scope_id, stepped_earning_keys.is_shared, matched_rows.*',
                                      on_entity=true) }}
),

{%- for part in ['unshared', 'shared'] %}

stepped_{{ part }} as (
    -- left joins (every scope_id exists) keep the wide columns out of the join above
    select
        stepped_earning.entity_id,
        stepped_scope.program_key,
        stepped_scope.offer_key,
        stepped_scope.calculator_key as offer_calculator,
        stepped_scope.strategy_key,
        stepped_earning.transaction_id,
        stepped_earning.sku_key,
        stepped_earning.quantity,
        stepped_earning.uom_key,
        stepped_earning.amount,
        stepped_earning.value,
        stepped_tiers.tier_key,
        stepped_tiers.rate,
        stepped_tiers.measure
    from stepped_earning
    left join stepped_scope on stepped_scope.scope_id = stepped_earning.scope_id
    left join stepped_participant_tiers
        on stepped_participant_tiers.entity_id = stepped_scope.entity_id
        and stepped_participant_tiers.offer_key = stepped_scope.offer_key
    left join stepped_transaction_tiers
        on stepped_scope.per_transaction
        and stepped_transaction_tiers.transaction_id = stepped_earning.transaction_id
        and stepped_transaction_tiers.offer_key = stepped_scope.offer_key
    -- a left join: below the lowest tier the earning transactions are kept with a null tier
    left join stepped_tiers
        on stepped_tiers.offer_key = stepped_scope.offer_key
        and stepped_tiers.threshold = case when stepped_scope.per_transaction then stepped_transaction_tiers.tier_threshold
                                           else stepped_participant_tiers.tier_threshold end
    where {{ 'not ' if part == 'unshared' }}stepped_earning.is_shared
),
{%- endfor %}

stepped_earning_rows as (
    -- fixed_amount shares the tier total over all earning transactions
    {{ incentives._shared_earning_rows('stepped_unshared', 'stepped_shared', 'entity_id, offer_key') }}
)

select
    entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
    tier_key as incentive_rate_key, measure as incentive_rate_measure, rate, transaction_id,
    quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
    {{ incentives.cast_measure('quantity') }} as quantity,
    value,
    share_total,
    {{ incentives._no_stacked_coverage() }}
from stepped_earning_rows
{%- endmacro %}
