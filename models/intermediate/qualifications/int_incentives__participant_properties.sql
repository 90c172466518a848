-- Request- and entity-level property texts per participant x key: the participant's own
-- request row and its entity row (the request defaults, empty entity_id, are
-- int_incentives__request_default_properties).
with properties as (
    select * from {{ ref('incentives', 'int_incentives__evaluated_properties') }}
),

by_row as (
    select level, entity_id, property_key, {{ incentives.min_text('property_value') }} as property_value
    from properties
    where level in ('request', 'entity') and transaction_id is null
    group by level, entity_id, property_key
),

final as (
    select
        'request' as property_level,
        own.entity_id,
        own.property_key,
        own.property_value as own_value
    from by_row as own
    where own.level = 'request' and own.entity_id is not null
    union all
    select 'entity', entity_id, property_key, property_value
    from by_row
    where level = 'entity' and entity_id is not null
)

select * from final
