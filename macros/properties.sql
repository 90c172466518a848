{#- _request_default_properties(properties): the request-level rows with empty entity_id, per key
    (the default of a request property), from the staged properties `properties`. Read by the
    property qualifications (int_qualification_measures) and stepped thresholds
    (int_stepped_thresholds) beside int_participant_properties. -#}
{% macro _request_default_properties(properties) -%}
    select property_key, {{ incentives.min_text('property_value') }} as property_value
    from {{ properties }}
    where level = 'request' and entity_id is null and transaction_id is null
    group by property_key
{%- endmacro %}
