-- The vendor statements' qualification results (the API's qualification_results), typed: text
-- trimmed (empty as null), met / waived as booleans, target / actual / difference DECIMAL(38,10).
-- qualification_level is null unless the statement tells (a key listed twice for one offer:
-- its program-level, then its offer-level qualification).
{%- if var('incentives_using_statements', false) %}
with source as (
    select * from {{ source('incentives_statements', 'statement_qualifications') }}
),

final as (
    select
        {{ incentives._statement_text('entity_id') }} as entity_id,
        {{ incentives._statement_text('offer_key') }} as offer_key,
        {{ incentives._statement_text('qualification_key') }} as qualification_key,
        lower({{ incentives._statement_text('qualification_level') }}) as qualification_level,
        {{ incentives._statement_boolean('met') }} as met,
        {{ incentives._statement_boolean('waived') }} as waived,
        {{ incentives._statement_number('target') }} as target,
        {{ incentives._statement_text('operator') }} as operator,
        {{ incentives._statement_number('actual') }} as actual,
        {{ incentives._statement_number('difference') }} as difference
    from source
)

select * from final
{%- else %}
-- incentives_using_statements is false: no statements (an empty table of the same columns)
select
    cast(null as {{ dbt.type_string() }}) as entity_id,
    cast(null as {{ dbt.type_string() }}) as offer_key,
    cast(null as {{ dbt.type_string() }}) as qualification_key,
    cast(null as {{ dbt.type_string() }}) as qualification_level,
    cast(null as boolean) as met,
    cast(null as boolean) as waived,
    {{ incentives.cast_measure('null') }} as target,
    cast(null as {{ dbt.type_string() }}) as operator,
    {{ incentives.cast_measure('null') }} as actual,
    {{ incentives.cast_measure('null') }} as difference
where 1 = 0
{%- endif %}
