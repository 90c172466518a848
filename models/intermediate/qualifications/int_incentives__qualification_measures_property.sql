-- Ephemeral: int_incentives__qualification_measures, its one reader, runs this query as a CTE and
-- writes its rows once (no relation of its own).
{{ config(materialized='ephemeral') }}

-- The types whose macros name the measure `property` (property): per participant x
-- qualification, the property's value as a number (a boolean as 1 or 0; null when missing or not
-- a number): the participant's own value (int_incentives__participant_properties), else, at
-- request level, the request default (int_incentives__request_default_properties), evaluated by
-- the type's macro (macros/qualifications/): target, actual, difference and met, before waivers.
with qualifications as (
    {{ incentives._qualifications_of_measure(ref('incentives', 'int_incentives__evaluations'),
                                             ref('incentives', 'stg_incentives__rules_qualifications'), 'property') }}
),

participant_properties as (
    select * from {{ ref('incentives', 'int_incentives__participant_properties') }}
),

default_properties as (
    select * from {{ ref('incentives', 'int_incentives__request_default_properties') }}
),

joined as (
    select
        qualifications.*,
        participant_properties.own_value as property_text,
        case when qualifications.property_level = 'request' then default_properties.property_value end
            as default_property_text
    from qualifications
    left join participant_properties
        on participant_properties.property_level = qualifications.property_level
        and participant_properties.property_key = qualifications.property_key
        and participant_properties.entity_id = qualifications.entity_id
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

final as (
    {{ incentives._evaluated_qualifications('measured', 'property') }}
)

select * from final
