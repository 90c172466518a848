-- Per participant x offer: the program qualifier, the offer's own qualifier and both. A
-- qualifier is stored as OR-of-AND terms; a qualification counts as true when met or waived; a
-- scope without terms (no qualifier) is qualified.
with evaluations as (
    select * from {{ ref('int_evaluations') }}
),

offers as (
    select * from {{ ref('stg_rules__offers') }}
),

terms as (
    select * from {{ ref('stg_rules__qualifier_terms') }}
),

status as (
    select * from {{ ref('int_qualification_status') }}
),

term_status as (
    select
        status.entity_id,
        terms.program_key,
        terms.offer_key,
        terms.term_id,
        min(case when status.met or status.waived then 1 else 0 end) as term_true
    from terms
    inner join status
        on status.program_key = terms.program_key
        and coalesce(status.offer_key, '') = coalesce(terms.offer_key, '')
        and status.qualification_key = terms.qualification_key
    group by status.entity_id, terms.program_key, terms.offer_key, terms.term_id
),

scope_status as (
    select entity_id, program_key, offer_key, max(term_true) = 1 as scope_qualified
    from term_status
    group by entity_id, program_key, offer_key
),

scopes_with_terms as (
    select distinct program_key, coalesce(offer_key, '') as scope_offer_key from terms
),

scoped as (
    select
        evaluations.entity_id,
        offers.program_key,
        offers.offer_key,
        offers.strategy_key,
        offers.calculator_key,
        case when program_scope.program_key is null then true
             else coalesce(program_status.scope_qualified, false) end as program_qualified,
        case when offer_scope.program_key is null then true
             else coalesce(offer_status.scope_qualified, false) end as offer_qualified
    from evaluations
    inner join offers on offers.program_key = evaluations.program_key
    left join scopes_with_terms as program_scope
        on program_scope.program_key = offers.program_key and program_scope.scope_offer_key = ''
    left join scopes_with_terms as offer_scope
        on offer_scope.program_key = offers.program_key and offer_scope.scope_offer_key = offers.offer_key
    left join scope_status as program_status
        on program_status.entity_id = evaluations.entity_id
        and program_status.program_key = offers.program_key
        and program_status.offer_key is null
    left join scope_status as offer_status
        on offer_status.entity_id = evaluations.entity_id
        and offer_status.program_key = offers.program_key
        and offer_status.offer_key = offers.offer_key
),

final as (
    select
        scoped.*,
        program_qualified and offer_qualified as qualified
    from scoped
)

select * from final
