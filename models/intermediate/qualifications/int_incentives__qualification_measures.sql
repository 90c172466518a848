-- One row per participant x qualification (program- and offer-level) of the programs it is
-- evaluated for: target, actual, difference and met (before waivers). The expressions of each
-- qualification type come from its macro in macros/qualifications/.
with evaluations as (
    select * from {{ ref('incentives', 'int_incentives__evaluations') }}
),

qualifications as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualifications') }}
),

filter_totals as (
    select * from {{ ref('incentives', 'int_incentives__filter_totals') }}
),

brand_counts as (
    select * from {{ ref('incentives', 'int_incentives__brand_counts') }}
),

participant_properties as (
    select * from {{ ref('incentives', 'int_incentives__participant_properties') }}
),

default_properties as (
    select * from {{ ref('incentives', 'int_incentives__request_default_properties') }}
),

joined as (
    select
        evaluations.entity_id,
        qualifications.*,
        coalesce(filtered.amount, 0) as filter_amount,
        coalesce(filtered.quantity, 0) as filter_quantity,
        coalesce(numerator.amount, 0) as numerator_amount,
        coalesce(numerator.quantity, 0) as numerator_quantity,
        coalesce(denominator.amount, 0) as denominator_amount,
        coalesce(denominator.quantity, 0) as denominator_quantity,
        coalesce(brand_counts.brand_count, 0) as brand_count,
        participant_properties.own_value as property_text,
        case when qualifications.property_level = 'request' then default_properties.property_value end
            as default_property_text
    from evaluations
    inner join qualifications on qualifications.program_key = evaluations.program_key
    left join filter_totals as filtered
        on filtered.filter_id = qualifications.filter_id and filtered.entity_id = evaluations.entity_id
    left join filter_totals as numerator
        on numerator.filter_id = qualifications.numerator_filter_id and numerator.entity_id = evaluations.entity_id
    left join filter_totals as denominator
        on denominator.filter_id = qualifications.denominator_filter_id and denominator.entity_id = evaluations.entity_id
    left join brand_counts
        on brand_counts.qualification_id = qualifications.qualification_id
        and brand_counts.entity_id = evaluations.entity_id
    left join participant_properties
        on participant_properties.property_level = qualifications.property_level
        and participant_properties.property_key = qualifications.property_key
        and participant_properties.entity_id = evaluations.entity_id
    left join default_properties
        on default_properties.property_key = qualifications.property_key
),

measured as (
    select
        joined.*,
        case
            when is_boolean then coalesce(
                {{ incentives.to_boolean_number('property_text') }},
                {{ incentives.to_boolean_number('default_property_text') }})
            else coalesce(
                {{ incentives.safe_to_decimal('property_text') }},
                {{ incentives.safe_to_decimal('default_property_text') }})
        end as property_number
    from joined
),

evaluated as (
    select
        entity_id,
        qualification_id,
        program_key,
        offer_key,
        qualification_key,
        qualification_level,
        qualification_type,
        operator,
        is_boolean,
        {{ incentives.cast_measure(incentives.qualification('target')) }} as target,
        {{ incentives.cast_measure(incentives.qualification('actual')) }} as actual,
        case when not is_boolean then {{ incentives.qualification('difference') }} end as difference,
        {{ incentives.qualification('compare_actual') }} as compare_actual,
        {{ incentives.qualification('compare_target') }} as compare_target,
        {{ incentives.qualification('met_when') }} as met_regardless
    from measured
),

final as (
    select
        entity_id,
        qualification_id,
        program_key,
        offer_key,
        qualification_key,
        qualification_level,
        qualification_type,
        operator,
        target,
        actual,
        {{ incentives.cast_measure('difference') }} as difference,
        case
            when met_regardless then true
            when actual is null or target is null then false
            else coalesce({{ incentives.compare('operator', 'compare_actual', 'compare_target') }}, false)
        end as met
    from evaluated
)

select * from final
