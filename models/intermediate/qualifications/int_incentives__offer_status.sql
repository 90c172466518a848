-- Per participant x offer: the program qualifier, the offer's own qualifier and both. A
-- qualifier is stored as OR-of-AND terms; a qualification counts as true when met or waived; a
-- scope without terms (no qualifier) is qualified.
with evaluations as (
    select * from {{ ref('incentives', 'int_incentives__evaluations') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

terms as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualifier_terms') }}
),

status as (
    select * from {{ ref('incentives', 'int_incentives__qualification_status') }}
),

scoped_terms as (
    -- an integer id per scope (program, or program x offer): the participant-level group-bys
    -- below then key on (participant, integers) instead of long text keys
    select
        terms.*,
        dense_rank() over (order by terms.program_key, coalesce(terms.offer_key, '')) as scope_id
    from terms
),

term_status as (
    select
        status.entity_id,
        scoped_terms.scope_id,
        scoped_terms.term_id,
        min(case when status.met or status.waived then 1 else 0 end) as term_true
    from scoped_terms
    inner join status
        on status.program_key = scoped_terms.program_key
        and coalesce(status.offer_key, '') = coalesce(scoped_terms.offer_key, '')
        and status.qualification_key = scoped_terms.qualification_key
    group by status.entity_id, scoped_terms.scope_id, scoped_terms.term_id
),

scope_status as (
    select entity_id, scope_id, max(term_true) = 1 as scope_qualified
    from term_status
    group by entity_id, scope_id
),

scopes_with_terms as (
    select distinct program_key, coalesce(offer_key, '') as scope_offer_key, scope_id from scoped_terms
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
        and program_status.scope_id = program_scope.scope_id
    left join scope_status as offer_status
        on offer_status.entity_id = evaluations.entity_id
        and offer_status.scope_id = offer_scope.scope_id
),

final as (
    select
        scoped.*,
        program_qualified and offer_qualified as qualified
    from scoped
)

select * from final
