-- The default of each request-level property: the request rows with an empty entity_id, one per
-- key (the smallest text when several). Read beside int_incentives__participant_properties by the property
-- qualifications (int_incentives__qualification_measures) and the stepped thresholds (int_incentives__stepped_thresholds)
-- when the participant has no request row of its own.
with properties as (
    select * from {{ ref('incentives', 'stg_incentives__properties') }}
),

final as (
    select
        property_key,
        {{ incentives.min_text('property_value') }} as property_value
    from properties
    where level = 'request' and entity_id is null and transaction_id is null
    group by property_key
)

select * from final
