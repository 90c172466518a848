-- materialized as a view: potential_earnings computes and writes the earning rows once
{{ config(materialized='view') }}

-- Stepped offers: the threshold value (aggregated amount / quantity over the threshold filters,
-- or a property) picks the highest tier whose threshold <= value; that tier pays every earning
-- transaction (incentive.filters, a union). A transaction-level property picks a tier per
-- transaction. fixed_amount shares the tier total over all earning transactions by value.
with qualified as (
    select * from {{ ref('int_offer_status') }}
    where strategy_key = 'stepped'  -- every evaluated pair: potential_earnings keeps the qualified ones
),

offers as (
    select * from {{ ref('stg_rules__offers') }} where strategy_key = 'stepped'
),

tiers as (
    select * from {{ ref('stg_rules__stepped_tiers') }}
),

filter_keys as (
    select * from {{ ref('stg_rules__filter_keys') }}
),

bucket_rows as (
    select * from {{ ref('int_transaction_buckets') }}
),

thresholds as (
    select * from {{ ref('int_stepped_thresholds') }}
),

properties as (
    select * from {{ ref('stg_properties') }}
),

transaction_properties as (
    select transaction_id, property_key, {{ incentives.min_text('property_value') }} as property_value
    from properties
    where level = 'transaction' and transaction_id is not null
    group by transaction_id, property_key
),

offer_scope as (
    select
        qualified.entity_id, qualified.calculator_key, offers.program_key, offers.offer_key, offers.strategy_key,
        offers.threshold_type, offers.threshold_property_key, offers.threshold_property_level, offers.earning_filter_id,
        offers.threshold_type = 'property' and offers.threshold_property_level = 'transaction' as per_transaction,
        qualified.calculator_key = 'fixed_amount' as is_shared,
        qualified.qualified,
        row_number() over (order by qualified.entity_id, offers.offer_key) as scope_id
    from qualified
    inner join offers on offers.offer_key = qualified.offer_key
),

participant_tiers as (
    -- the tier is chosen once per participant x offer (or per transaction below), not per earning row
    {{ incentives._tier_thresholds('thresholds', ['entity_id', 'offer_key'], 'tiers') }}
),

transaction_threshold_values as (
    select
        transaction_properties.transaction_id,
        offers.offer_key,
        {{ incentives.safe_to_decimal('transaction_properties.property_value') }} as threshold_value
    from offers
    inner join transaction_properties on transaction_properties.property_key = offers.threshold_property_key
    where offers.threshold_type = 'property' and offers.threshold_property_level = 'transaction'
),

transaction_tiers as (
    {{ incentives._tier_thresholds('transaction_threshold_values', ['transaction_id', 'offer_key'], 'tiers') }}
),

earning_keys as (
    -- narrow build side (the transactions below carry their own columns through the join), only
    -- the keys a participant has transactions for
    select offer_scope.scope_id, offer_scope.is_shared, offer_scope.entity_id,
        filter_keys.sku_key, filter_keys.transaction_type, filter_keys.bucket_id
    from offer_scope
    inner join filter_keys on filter_keys.filter_id = offer_scope.earning_filter_id
    where filter_keys.sku_key is null or exists (
        select 1 from bucket_rows
        where bucket_rows.entity_id = offer_scope.entity_id
            and bucket_rows.sku_key = filter_keys.sku_key
            and bucket_rows.transaction_type = filter_keys.transaction_type
            and bucket_rows.bucket_id = filter_keys.bucket_id
    )
),

sku_transactions as (
    select * from {{ ref('int_transactions') }}
),

any_sku_transactions as (
    -- int_transactions once per join: a CTE read twice is materialized (10M rows)
    select * from {{ ref('int_transactions') }}
),

earning as (
    {{ incentives._filter_key_matches('sku_transactions', 'any_sku_transactions', 'earning_keys',
                                      'earning_keys.scope_id, earning_keys.is_shared, matched_rows.*',
                                      on_entity=true) }}
),

{%- for part in ['unshared', 'shared'] %}

{{ part }}_tiered as (
    -- left joins (every scope_id exists) keep the wide columns out of the join above
    select
        earning.entity_id,
        offer_scope.program_key,
        offer_scope.offer_key,
        offer_scope.calculator_key as offer_calculator,
        offer_scope.strategy_key,
        earning.transaction_id,
        earning.sku_key,
        earning.quantity,
        earning.uom_key,
        earning.amount,
        earning.value,
        tiers.tier_key,
        tiers.rate,
        tiers.measure,
        offer_scope.qualified
    from earning
    left join offer_scope on offer_scope.scope_id = earning.scope_id
    left join participant_tiers
        on participant_tiers.entity_id = offer_scope.entity_id
        and participant_tiers.offer_key = offer_scope.offer_key
    left join transaction_tiers
        on offer_scope.per_transaction
        and transaction_tiers.transaction_id = earning.transaction_id
        and transaction_tiers.offer_key = offer_scope.offer_key
    -- a left join: below the lowest tier the earning transactions are kept with a null tier (the
    -- next tier's amount is computed on them); potential_earnings keeps only rows with a rate
    left join tiers
        on tiers.offer_key = offer_scope.offer_key
        and tiers.threshold = case when offer_scope.per_transaction then transaction_tiers.tier_threshold
                                   else participant_tiers.tier_threshold end
    where {{ 'not ' if part == 'unshared' }}earning.is_shared
),
{%- endfor %}

earning_rows as (
    -- fixed_amount shares the tier total over all earning transactions
    {{ incentives._shared_earning_rows('unshared_tiered', 'shared_tiered', 'entity_id, offer_key') }}
),

final as (
    select
        entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
        tier_key as incentive_rate_key, measure as incentive_rate_measure, rate, transaction_id,
        quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
        {{ incentives.cast_measure('quantity') }} as quantity,
        value,
        share_total,
        cast(null as {{ incentives.type_measure() }}) as coverage,
        cast(null as {{ incentives.type_measure() }}) as overlap,
        cast(null as {{ incentives.type_measure() }}) as set_coverage,
        qualified
    from earning_rows
)

select * from final
