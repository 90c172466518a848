-- Problems that do not stop a calculation, kept so they are not silent: one row per finding
-- (grouped where a finding repeats, with the number of rows in `row_count`).
-- The transactions are read by one narrow import per use: a CTE used several times would be
-- materialized whole (all columns, every row) on DuckDB.
with transaction_skus as (
    select sku_key, count(*) as row_count
    from {{ ref('incentives', 'stg_incentives__transactions') }}
    group by sku_key
),

transaction_entities as (
    select distinct entity_id
    from {{ ref('incentives', 'stg_incentives__transactions') }}
    where entity_id is not null
),

transaction_ids as (
    select transaction_id
    from {{ ref('incentives', 'stg_incentives__transactions') }}
),

transaction_uoms as (
    select sku_key, uom_key, transaction_type, transaction_date
    from {{ ref('incentives', 'stg_incentives__transactions') }}
),

products as (
    select * from {{ ref('incentives', 'stg_incentives__products') }}
),

properties as (
    select * from {{ ref('incentives', 'stg_incentives__properties') }}
),

waivers as (
    select * from {{ ref('incentives', 'stg_incentives__waivers') }}
),

enrollments as (
    select * from {{ ref('incentives', 'stg_incentives__enrollments') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

qualifications as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualifications') }}
),

set_skus as (
    select * from {{ ref('incentives', 'stg_incentives__rules_stacked_set_skus') }}
),

participants as (
    select entity_id from transaction_entities
    union
    select distinct entity_id from properties where level = 'entity' and entity_id is not null
),

unknown_skus as (
    select
        'sku_not_in_products' as check_name,
        'transactions' as table_name,
        transaction_skus.sku_key as row_key,
        'sku_key' as column_name,
        transaction_skus.sku_key as bad_value,
        'SKU missing from products: it has no brand (brand_count ignores it)' as message,
        transaction_skus.row_count
    from transaction_skus
    left join products on products.sku_key = transaction_skus.sku_key
    where products.sku_key is null
),

uom_mismatches as (
    select
        'uom_not_conversion_from' as check_name,
        'transactions' as table_name,
        set_skus.offer_key || ' / ' || set_skus.set_key as row_key,
        'uom_key' as column_name,
        transaction_uoms.sku_key || ' in ' || coalesce(transaction_uoms.uom_key, '(empty)') as bad_value,
        '{{ dbt.escape_single_quotes("transactions of a stacked SKU set in another uom than the conversion's from (") }}'
            || set_skus.from_uom || ') do not count' as message,
        count(*) as row_count
    from set_skus
    inner join transaction_uoms
        on transaction_uoms.sku_key = set_skus.sku_key
        and (set_skus.transaction_type is null or set_skus.transaction_type = transaction_uoms.transaction_type)
        and transaction_uoms.transaction_date >= set_skus.start_date
        and transaction_uoms.transaction_date <= set_skus.end_date
    where coalesce(transaction_uoms.uom_key, '') <> set_skus.from_uom
    group by set_skus.offer_key, set_skus.set_key, transaction_uoms.sku_key, transaction_uoms.uom_key, set_skus.from_uom
),

unmatched_waivers as (
    select
        'waiver_names_unknown_qualification' as check_name,
        'waivers' as table_name,
        waivers.program_key || ' / ' || coalesce(waivers.offer_key, '(program level)') as row_key,
        'qualification_key' as column_name,
        waivers.qualification_key as bad_value,
        'no qualification with this program, offer and key: the waiver changes nothing' as message,
        count(*) as row_count
    from waivers
    left join qualifications
        on qualifications.program_key = waivers.program_key
        and qualifications.qualification_key = waivers.qualification_key
        and coalesce(qualifications.offer_key, '') = coalesce(waivers.offer_key, '')
    where qualifications.qualification_id is null
    group by waivers.program_key, waivers.offer_key, waivers.qualification_key
),

waivers_unknown_participant as (
    select
        'waiver_names_unknown_participant' as check_name,
        'waivers' as table_name,
        waivers.program_key || ' / ' || waivers.qualification_key as row_key,
        'entity_id' as column_name,
        waivers.entity_id as bad_value,
        'no participant with this entity_id' as message,
        count(*) as row_count
    from waivers
    left join participants on participants.entity_id = waivers.entity_id
    where waivers.entity_id is not null and participants.entity_id is null
    group by waivers.program_key, waivers.qualification_key, waivers.entity_id
),

properties_unknown_participant as (
    select
        'property_names_unknown_participant' as check_name,
        'properties' as table_name,
        properties.property_key as row_key,
        'entity_id' as column_name,
        properties.entity_id as bad_value,
        'request-level property for an entity_id that is not a participant' as message,
        count(*) as row_count
    from properties
    left join participants on participants.entity_id = properties.entity_id
    where properties.level = 'request' and properties.entity_id is not null and participants.entity_id is null
    group by properties.property_key, properties.entity_id
),

properties_unknown_transaction as (
    select
        'property_names_unknown_transaction' as check_name,
        'properties' as table_name,
        properties.property_key as row_key,
        'transaction_id' as column_name,
        properties.transaction_id as bad_value,
        'transaction-level property for a transaction_id not in transactions' as message,
        count(*) as row_count
    from properties
    left join transaction_ids on transaction_ids.transaction_id = properties.transaction_id
    where properties.level = 'transaction' and transaction_ids.transaction_id is null
    group by properties.property_key, properties.transaction_id
),

property_duplicates as (
    select
        'property_duplicate' as check_name,
        'properties' as table_name,
        level || ' / ' || coalesce(entity_id, coalesce(transaction_id, '(default)')) as row_key,
        'key' as column_name,
        property_key as bad_value,
        'several rows for the same property: the smallest value is used' as message,
        count(*) as row_count
    from properties
    group by level, entity_id, transaction_id, property_key
    having count(*) > 1
),

property_unparseable as (
    select
        'property_value_not_readable' as check_name,
        'properties' as table_name,
        properties.property_key || ' / ' || coalesce(properties.entity_id, '(default)') as row_key,
        'value' as column_name,
        properties.property_value as bad_value,
        case when qualifications.is_boolean then 'not true/false' else 'not a number' end
            || ': treated as missing' as message,
        count(*) as row_count
    from properties
    inner join qualifications on qualifications.property_key = properties.property_key
        and qualifications.property_level = properties.level
    where (qualifications.is_boolean and {{ incentives.to_boolean_number('properties.property_value') }} is null)
        or (not qualifications.is_boolean and {{ incentives.safe_to_decimal('properties.property_value') }} is null)
    group by properties.property_key, properties.entity_id, properties.property_value, qualifications.is_boolean
),

enrollments_unknown_program as (
    select
        'enrollment_names_unknown_program' as check_name,
        'enrollments' as table_name,
        enrollments.entity_id as row_key,
        'program_key' as column_name,
        enrollments.program_key as bad_value,
        'no program with this key in the catalogue' as message,
        count(*) as row_count
    from enrollments
    left join (select distinct program_key from offers) as programs
        on programs.program_key = enrollments.program_key
    where programs.program_key is null
    group by enrollments.entity_id, enrollments.program_key
),

findings as (
    select * from unknown_skus
    union all select * from uom_mismatches
    union all select * from unmatched_waivers
    union all select * from waivers_unknown_participant
    union all select * from properties_unknown_participant
    union all select * from properties_unknown_transaction
    union all select * from property_duplicates
    union all select * from property_unparseable
    union all select * from enrollments_unknown_program
),

final as (
    select
        {{ incentives.run_id() }} as run_id,
        check_name,
        table_name,
        row_key,
        column_name,
        bad_value,
        message,
        row_count
    from findings
)

select * from final
