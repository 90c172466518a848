-- materialized as a view: potential_earnings computes and writes the earning rows once
{{ config(materialized='view') }}

-- Stepped offers: the threshold value (aggregated amount / quantity over the threshold filters,
-- or a property) picks the highest tier whose threshold <= value; that tier pays every earning
-- transaction (incentive.filters, a union). A transaction-level property picks a tier per
-- transaction. fixed_amount shares the tier total over all earning transactions by value.
with qualified as (
    select * from {{ ref('int_offer_status') }}
    where qualified and strategy_key = 'stepped'
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

transactions as (
    select * from {{ ref('int_transactions') }}
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
        offers.threshold_type, offers.threshold_property_key, offers.threshold_property_level, offers.earning_filter_id
    from qualified
    inner join offers on offers.offer_key = qualified.offer_key
),

earning_by_sku as (
    select offer_scope.entity_id, offer_scope.offer_key, transactions.transaction_id
    from offer_scope
    inner join filter_keys on filter_keys.filter_id = offer_scope.earning_filter_id and filter_keys.sku_key is not null
    inner join transactions
        on transactions.entity_id = offer_scope.entity_id
        and transactions.sku_key = filter_keys.sku_key
        and transactions.transaction_type = filter_keys.transaction_type
        and transactions.bucket_id = filter_keys.bucket_id
),

earning_any_sku as (
    select offer_scope.entity_id, offer_scope.offer_key, transactions.transaction_id
    from offer_scope
    inner join filter_keys on filter_keys.filter_id = offer_scope.earning_filter_id and filter_keys.sku_key is null
    inner join transactions
        on transactions.entity_id = offer_scope.entity_id
        and transactions.transaction_type = filter_keys.transaction_type
        and transactions.bucket_id = filter_keys.bucket_id
),

earning as (
    -- the keys of a filter never overlap: each transaction matches at most once
    select * from earning_by_sku
    union all
    select * from earning_any_sku
),

earning_rows as (
    select
        earning.entity_id,
        offer_scope.program_key,
        earning.offer_key,
        offer_scope.calculator_key as offer_calculator,
        offer_scope.strategy_key,
        transactions.transaction_id,
        transactions.sku_key,
        transactions.quantity,
        transactions.uom_key,
        transactions.amount,
        transactions.value,
        case when offer_scope.threshold_type = 'property' and offer_scope.threshold_property_level = 'transaction'
             then {{ incentives.safe_to_decimal('transaction_properties.property_value') }}
             else thresholds.threshold_value
        end as threshold_value
    from earning
    inner join offer_scope
        on offer_scope.entity_id = earning.entity_id and offer_scope.offer_key = earning.offer_key
    inner join transactions on transactions.transaction_id = earning.transaction_id
    left join thresholds
        on thresholds.entity_id = earning.entity_id
        and thresholds.offer_key = earning.offer_key
    left join transaction_properties
        on transaction_properties.transaction_id = earning.transaction_id
        and transaction_properties.property_key = offer_scope.threshold_property_key
),

tier_choices as (
    -- the tier is chosen once per distinct (offer, threshold value), not per earning row
    select
        values_seen.offer_key,
        values_seen.threshold_value,
        max(tiers.threshold) as tier_threshold
    from (select distinct offer_key, threshold_value from earning_rows where threshold_value is not null) as values_seen
    inner join tiers
        on tiers.offer_key = values_seen.offer_key
        and tiers.threshold <= values_seen.threshold_value
    group by values_seen.offer_key, values_seen.threshold_value
),

tiered as (
    select
        earning_rows.*,
        tiers.tier_key,
        tiers.rate,
        tiers.measure
    from earning_rows
    inner join tier_choices
        on tier_choices.offer_key = earning_rows.offer_key
        and tier_choices.threshold_value = earning_rows.threshold_value
    inner join tiers
        on tiers.offer_key = tier_choices.offer_key
        and tiers.threshold = tier_choices.tier_threshold
),

share_totals as (
    select entity_id, offer_key, sum(value) as share_total
    from tiered
    where offer_calculator = 'fixed_amount'
    group by entity_id, offer_key
),

chosen as (
    select
        tiered.*,
        share_totals.share_total
    from tiered
    left join share_totals
        on share_totals.entity_id = tiered.entity_id
        and share_totals.offer_key = tiered.offer_key
),

final as (
    select
        entity_id, program_key, offer_key, offer_calculator, strategy_key, sku_key,
        tier_key as incentive_rate_key, measure as incentive_rate_measure, rate, transaction_id,
        quantity as provided_quantity, uom_key as provided_uom_key, amount as provided_amount,
        {{ incentives.cast_measure('quantity') }} as quantity,
        value,
        {{ incentives.cast_measure('share_total') }} as share_total,
        cast(null as {{ incentives.type_measure() }}) as covered_units,
        cast(null as {{ incentives.type_measure() }}) as contribution
    from chosen
    where offer_calculator <> 'fixed_amount' or share_total > 0
)

select * from final
