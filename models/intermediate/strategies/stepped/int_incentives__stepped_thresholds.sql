-- Per participant x stepped offer (every evaluated pair, qualified or not): the participant-level
-- threshold value (aggregated amount / quantity over the threshold filters, or a request / entity
-- property; null for a transaction-level property) and the tier it reaches.
with evaluations as (
    select * from {{ ref('incentives', 'int_incentives__evaluations') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }} where strategy_key = 'stepped'
),

tiers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_stepped_tiers') }}
),

filter_totals as (
    select * from {{ ref('incentives', 'int_incentives__filter_totals') }}
),

participant_properties as (
    select * from {{ ref('incentives', 'int_incentives__participant_properties') }}
),

default_properties as (
    select * from {{ ref('incentives', 'int_incentives__request_default_properties') }}
),

thresholds as (
    select
        evaluations.entity_id,
        offers.program_key,
        offers.offer_key,
        case offers.threshold_type
            when 'aggregated_amount' then {{ incentives.cast_measure('coalesce(filter_totals.amount, 0)') }}
            when 'aggregated_quantity' then {{ incentives.cast_measure('coalesce(filter_totals.quantity, 0)') }}
            else coalesce(
                {{ incentives.safe_to_decimal('participant_properties.own_value') }},
                {{ incentives.safe_to_decimal('default_properties.property_value') }})
        end as threshold_value
    from evaluations
    inner join offers on offers.program_key = evaluations.program_key
    left join filter_totals
        on filter_totals.filter_id = offers.threshold_filter_id
        and filter_totals.entity_id = evaluations.entity_id
    left join participant_properties
        on participant_properties.property_level = offers.threshold_property_level
        and participant_properties.property_key = offers.threshold_property_key
        and participant_properties.entity_id = evaluations.entity_id
    left join default_properties
        on offers.threshold_property_level = 'request'
        and default_properties.property_key = offers.threshold_property_key
),

reached as (
    {{ incentives._tier_thresholds('thresholds', ['entity_id', 'offer_key'], 'tiers') }}
),

upcoming as (
    {{ incentives._tier_thresholds('thresholds', ['entity_id', 'offer_key'], 'tiers', next=true) }}
),

final as (
    select
        thresholds.entity_id,
        thresholds.program_key,
        thresholds.offer_key,
        {{ incentives.cast_measure('thresholds.threshold_value') }} as threshold_value,
        current_tier.tier_key as current_tier_key,
        next_tier.tier_key as next_tier_key,
        next_tier.threshold as next_tier_threshold,
        next_tier.rate as next_tier_rate,
        {{ incentives.cast_measure('next_tier.threshold - thresholds.threshold_value') }} as gap_to_next_tier
    from thresholds
    left join reached
        on reached.entity_id = thresholds.entity_id and reached.offer_key = thresholds.offer_key
    left join tiers as current_tier
        on current_tier.offer_key = reached.offer_key and current_tier.threshold = reached.tier_threshold
    left join upcoming
        on upcoming.entity_id = thresholds.entity_id and upcoming.offer_key = thresholds.offer_key
    left join tiers as next_tier
        on next_tier.offer_key = upcoming.offer_key and next_tier.threshold = upcoming.tier_threshold
)

select * from final
