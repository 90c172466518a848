-- One row per participant a statement was read for x offer, on either side: the engine's offers
-- of the participant (offer_results) and the offers its statement lists. What the engine knows of
-- the pair (the participant, the offer, whether it qualified, the stepped tier reached) and the
-- statement's own qualifier: the offer's program and offer qualifiers evaluated on the
-- statement's met / waived (a qualification the statement does not list counts as not met).
with offer_results as (
    select * from {{ ref('incentives', 'offer_results') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

terms as (
    select * from {{ ref('incentives', 'stg_incentives__rules_qualifier_terms') }}
),

statement_earnings as (
    select * from {{ ref('incentives', 'stg_incentives__statement_earnings') }}
),

statement_qualifications as (
    select * from {{ ref('incentives', 'stg_incentives__statement_qualifications') }}
),

participants as (
    {{ incentives._statement_participants('statement_earnings', 'statement_qualifications') }}
),

engine_participants as (
    select distinct entity_id from offer_results
),

engine_pairs as (
    select offer_results.*
    from offer_results
    inner join participants on participants.entity_id = offer_results.entity_id
),

statement_tiers as (
    -- the statement's rate key of the offer (a stepped offer's tier): the smallest when several
    select entity_id, offer_key, min(incentive_rate_key) as statement_tier_key
    from statement_earnings
    group by entity_id, offer_key
),

all_pairs as (
    select entity_id, offer_key from engine_pairs
    union
    select entity_id, offer_key from statement_earnings
    union
    select entity_id, offer_key from statement_qualifications
),

term_status as (
    -- per pair, scope (program or offer) and term: true when every key of the AND term is met or
    -- waived in the statement
    select
        all_pairs.entity_id,
        all_pairs.offer_key,
        terms.offer_key is null as program_scope,
        terms.term_id,
        min(case when statement_qualifications.met or coalesce(statement_qualifications.waived, false)
                 then 1 else 0 end) as term_true
    from all_pairs
    inner join offers on offers.offer_key = all_pairs.offer_key
    inner join terms
        on terms.program_key = offers.program_key
        and (terms.offer_key is null or terms.offer_key = offers.offer_key)
    left join statement_qualifications
        on statement_qualifications.entity_id = all_pairs.entity_id
        and statement_qualifications.offer_key = all_pairs.offer_key
        and statement_qualifications.qualification_key = terms.qualification_key
        and (statement_qualifications.qualification_level is null
             or statement_qualifications.qualification_level
                = case when terms.offer_key is null then 'program' else 'offer' end)
    group by all_pairs.entity_id, all_pairs.offer_key, terms.offer_key is null, terms.term_id
),

statement_qualifiers as (
    -- a scope without terms is qualified; with terms, when one of them is true
    select
        entity_id,
        offer_key,
        min(scope_true) = 1 as statement_qualified
    from (
        select entity_id, offer_key, program_scope, max(term_true) as scope_true
        from term_status
        group by entity_id, offer_key, program_scope
    ) as scopes
    group by entity_id, offer_key
),

final as (
    select
        all_pairs.entity_id,
        coalesce(engine_pairs.program_key, offers.program_key) as program_key,
        all_pairs.offer_key,
        offers.strategy_key,
        engine_participants.entity_id is not null as participant_known,
        offers.offer_key is not null as offer_known,
        engine_pairs.qualified as engine_qualified,
        case when offers.offer_key is not null then coalesce(statement_qualifiers.statement_qualified, true)
             end as statement_qualified,
        engine_pairs.current_tier_key as engine_tier_key,
        case when offers.strategy_key = 'stepped' then statement_tiers.statement_tier_key end as statement_tier_key
    from all_pairs
    left join engine_pairs
        on engine_pairs.entity_id = all_pairs.entity_id and engine_pairs.offer_key = all_pairs.offer_key
    left join offers on offers.offer_key = all_pairs.offer_key
    left join engine_participants on engine_participants.entity_id = all_pairs.entity_id
    left join statement_qualifiers
        on statement_qualifiers.entity_id = all_pairs.entity_id
        and statement_qualifiers.offer_key = all_pairs.offer_key
    left join statement_tiers
        on statement_tiers.entity_id = all_pairs.entity_id and statement_tiers.offer_key = all_pairs.offer_key
)

select * from final
