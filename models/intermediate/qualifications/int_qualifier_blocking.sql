-- Per participant x unqualified qualifier (a program's, offer_key null, or an offer's own): the
-- qualification keys that block it. A qualifier is stored as OR-of-AND terms; a key is open when
-- it is neither met nor waived. The closest terms are those with the fewest open keys; the
-- blocking keys are the union of their open keys, sorted, comma-separated. A qualifier with a
-- term without open keys is true and has no row.
with terms as (
    select * from {{ ref('stg_rules__qualifier_terms') }}
),

status as (
    select * from {{ ref('int_qualification_status') }}
),

term_keys as (
    select
        status.entity_id,
        terms.program_key,
        coalesce(terms.offer_key, '') as scope_offer_key,
        terms.term_id,
        terms.qualification_key,
        case when status.met or status.waived then 0 else 1 end as is_open
    from terms
    inner join status
        on status.program_key = terms.program_key
        and coalesce(status.offer_key, '') = coalesce(terms.offer_key, '')
        and status.qualification_key = terms.qualification_key
),

term_open_counts as (
    select entity_id, program_key, scope_offer_key, term_id, sum(is_open) as open_keys
    from term_keys
    group by entity_id, program_key, scope_offer_key, term_id
),

unqualified_scopes as (
    select entity_id, program_key, scope_offer_key, min(open_keys) as fewest_open_keys
    from term_open_counts
    group by entity_id, program_key, scope_offer_key
    having min(open_keys) > 0
),

closest_keys as (
    select distinct
        term_keys.entity_id,
        term_keys.program_key,
        term_keys.scope_offer_key,
        term_keys.qualification_key
    from term_keys
    inner join term_open_counts
        on term_open_counts.entity_id = term_keys.entity_id
        and term_open_counts.program_key = term_keys.program_key
        and term_open_counts.scope_offer_key = term_keys.scope_offer_key
        and term_open_counts.term_id = term_keys.term_id
    inner join unqualified_scopes
        on unqualified_scopes.entity_id = term_keys.entity_id
        and unqualified_scopes.program_key = term_keys.program_key
        and unqualified_scopes.scope_offer_key = term_keys.scope_offer_key
        and unqualified_scopes.fewest_open_keys = term_open_counts.open_keys
    where term_keys.is_open = 1
),

final as (
    select
        entity_id,
        program_key,
        case when scope_offer_key = '' then null else scope_offer_key end as offer_key,
        case when scope_offer_key = '' then 'program' else 'offer' end as qualifier_level,
        {{ incentives.sorted_key_list('qualification_key') }} as blocking_qualifications
    from closest_keys
    group by entity_id, program_key, scope_offer_key
)

select * from final
