-- Net quantity and value per participant x filter group, per SKU only for the filters a
-- brand_count qualification reads (the other filters' rows have a null sku_key: one total per
-- participant x filter). The compiler turns each filter group into non-overlapping (SKU or any,
-- transaction type, time bucket) keys, so a plain key join of the pre-aggregated rows counts
-- every transaction once (the union of entries).
-- With enrollments, only the (participant, filter) pairs of enrolled programs are summed: the
-- filters a program's qualifications and stepped thresholds read (earning filters join
-- transactions directly). Without enrollments every participant is evaluated for every program.
with bucket_rows as (
    select * from {{ ref('incentives', 'int_incentives__transaction_buckets') }}
),

any_sku_bucket_rows as (
    -- the same rows for the any-SKU keys (see _filter_key_matches)
    select * from {{ ref('incentives', 'int_incentives__transaction_buckets') }}
),

filter_keys as (
    select * from {{ ref('incentives', 'stg_incentives__rules_filter_keys') }}
),

evaluations as (
    select * from {{ ref('incentives', 'int_incentives__evaluations') }}
),

enrollments as (
    select * from {{ ref('incentives', 'int_incentives__evaluated_enrollments') }}
),

qualifications as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualifications') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

brand_filters as (
    select distinct filter_id
    from qualifications
    where qualification_type = 'brand_count' and filter_id is not null
),

summed_keys as (
    -- whether the filter's totals are kept per SKU
    select
        filter_keys.*,
        brand_filters.filter_id is not null as per_sku
    from filter_keys
    left join brand_filters on brand_filters.filter_id = filter_keys.filter_id
),

enrollment_mode as (
    select count(*) > 0 as enrolled_only from enrollments
),

program_filters as (
    {{ incentives._program_filters('qualifications', 'offers') }}
),

evaluated_filters as (
    -- empty without enrollments (then nothing is restricted)
    select distinct evaluations.entity_id, program_filters.filter_id
    from enrollment_mode
    cross join evaluations
    inner join program_filters on program_filters.program_key = evaluations.program_key
    where enrollment_mode.enrolled_only
),

matches as (
    {{ incentives._filter_key_matches('bucket_rows', 'any_sku_bucket_rows', 'summed_keys',
                                      'summed_keys.filter_id, matched_rows.entity_id,
        case when summed_keys.per_sku then matched_rows.sku_key end as sku_key,
        matched_rows.quantity, matched_rows.value') }}
),

evaluated_matches as (
    select matches.*
    from matches
    cross join enrollment_mode
    left join evaluated_filters
        on evaluated_filters.entity_id = matches.entity_id
        and evaluated_filters.filter_id = matches.filter_id
    where not enrollment_mode.enrolled_only or evaluated_filters.filter_id is not null
),

final as (
    select
        filter_id,
        entity_id,
        sku_key,
        sum(quantity) as quantity,
        sum(value) as value
    from evaluated_matches
    group by filter_id, entity_id, sku_key
)

select * from final
