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

entries as (
    select * from {{ ref('stg_rules__filter_entries') }}
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
    select transaction_id, property_key, min(property_value) as property_value
    from properties
    where level = 'transaction' and transaction_id is not null
    group by transaction_id, property_key
),

offer_scope as (
    select qualified.entity_id, qualified.calculator_key, offers.*
    from qualified
    inner join offers on offers.offer_key = qualified.offer_key
),

earning_by_sku as (
    select offer_scope.entity_id, offer_scope.offer_key, transactions.transaction_id
    from offer_scope
    inner join entries on entries.filter_id = offer_scope.earning_filter_id and entries.sku_key is not null
    inner join transactions
        on transactions.entity_id = offer_scope.entity_id
        and transactions.sku_key = entries.sku_key
    where (entries.transaction_type is null or entries.transaction_type = transactions.transaction_type)
        and transactions.transaction_date >= entries.start_date
        and transactions.transaction_date <= entries.end_date
),

earning_any_sku as (
    select offer_scope.entity_id, offer_scope.offer_key, transactions.transaction_id
    from offer_scope
    inner join entries on entries.filter_id = offer_scope.earning_filter_id and entries.sku_key is null
    inner join transactions on transactions.entity_id = offer_scope.entity_id
    where (entries.transaction_type is null or entries.transaction_type = transactions.transaction_type)
        and transactions.transaction_date >= entries.start_date
        and transactions.transaction_date <= entries.end_date
),

earning as (
    select * from earning_by_sku
    union
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

tiered as (
    select
        earning_rows.*,
        tiers.tier_key,
        tiers.rate,
        tiers.measure,
        row_number() over (
            partition by earning_rows.offer_key, earning_rows.transaction_id
            order by tiers.threshold desc
        ) as tier_order
    from earning_rows
    inner join tiers
        on tiers.offer_key = earning_rows.offer_key
        and tiers.threshold <= earning_rows.threshold_value
),

chosen as (
    select
        tiered.*,
        sum(value) over (partition by entity_id, offer_key) as share_total
    from tiered
    where tier_order = 1
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
