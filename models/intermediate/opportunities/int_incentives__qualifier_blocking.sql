-- Per participant x unqualified qualifier (a program's, offer_key null, or an offer's own): the
-- qualification keys that block it. A qualifier is stored as OR-of-AND terms; a key is open when
-- it is neither met nor waived. The closest terms are those with the fewest open keys; the
-- blocking keys are the union of their open keys, sorted, comma-separated. A qualifier with a
-- term without open keys is true and has no row.
--
-- Cost (its figures: docs/performance.md): only the open keys are read (a term without one has
-- no row, so a qualifier is unqualified when every one of its terms has a row); a qualifier of one
-- term needs no counting (its open keys block it); the group-bys key on an integer scope id, not
-- the long program and offer keys; the sorted key list is built once per output row (on DuckDB
-- with list_sort, see sorted_keys.sql).
with terms as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualifier_terms') }}
),

status as (
    select * from {{ ref('incentives', 'int_incentives__qualification_status') }}
),

numbered_terms as (
    -- an integer id per scope (program, or program x offer), as in int_incentives__offer_status
    select
        program_key,
        coalesce(offer_key, '') as scope_offer_key,
        term_id,
        qualification_key,
        dense_rank() over (order by program_key, coalesce(offer_key, '')) as scope_id
    from terms
),

scope_sizes as (
    select scope_id, count(distinct term_id) as term_count
    from numbered_terms
    group by scope_id
),

scope_terms as (
    select
        numbered_terms.*,
        scope_sizes.term_count
    from numbered_terms
    inner join scope_sizes on scope_sizes.scope_id = numbered_terms.scope_id
),

scopes as (
    select distinct scope_id, program_key, scope_offer_key
    from numbered_terms
),

open_keys as (
    select
        status.entity_id,
        scope_terms.scope_id,
        scope_terms.term_count,
        scope_terms.term_id,
        scope_terms.qualification_key
    from status
    inner join scope_terms
        on scope_terms.program_key = status.program_key
        and scope_terms.scope_offer_key = coalesce(status.offer_key, '')
        and scope_terms.qualification_key = status.qualification_key
    where not (status.met or status.waived)
),

-- qualifiers of several terms: count the open keys per term, keep the terms with the fewest
multi_term_open_keys as (
    select * from open_keys where term_count > 1
),

term_open_counts as (
    select entity_id, scope_id, term_count, term_id, count(*) as open_keys
    from multi_term_open_keys
    group by entity_id, scope_id, term_count, term_id
),

unqualified_scopes as (
    -- every term has an open key
    select entity_id, scope_id, min(open_keys) as fewest_open_keys
    from term_open_counts
    group by entity_id, scope_id, term_count
    having count(*) = term_count
),

closest_terms as (
    select
        term_open_counts.entity_id,
        term_open_counts.scope_id,
        term_open_counts.term_id
    from term_open_counts
    inner join unqualified_scopes
        on unqualified_scopes.entity_id = term_open_counts.entity_id
        and unqualified_scopes.scope_id = term_open_counts.scope_id
        and unqualified_scopes.fewest_open_keys = term_open_counts.open_keys
),

closest_keys as (
    -- a qualifier of one term: its open keys (distinct within the term)
    select entity_id, scope_id, qualification_key
    from open_keys
    where term_count = 1
    union all
    select distinct
        multi_term_open_keys.entity_id,
        multi_term_open_keys.scope_id,
        multi_term_open_keys.qualification_key
    from multi_term_open_keys
    inner join closest_terms
        on closest_terms.entity_id = multi_term_open_keys.entity_id
        and closest_terms.scope_id = multi_term_open_keys.scope_id
        and closest_terms.term_id = multi_term_open_keys.term_id
),

blocking as (
    select
        entity_id,
        scope_id,
        {{ incentives.sorted_key_list('qualification_key') }} as blocking_qualifications
    from closest_keys
    group by entity_id, scope_id
),

final as (
    select
        blocking.entity_id,
        scopes.program_key,
        case when scopes.scope_offer_key = '' then null else scopes.scope_offer_key end as offer_key,
        case when scopes.scope_offer_key = '' then 'program' else 'offer' end as qualifier_level,
        blocking.blocking_qualifications
    from blocking
    inner join scopes on scopes.scope_id = blocking.scope_id
)

select * from final
