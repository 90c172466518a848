-- One row per participant a statement was read for x offer x qualification, on either side: the
-- engine's evaluation (qualification_results) beside the statement's, and whether they agree.
-- Matched on (entity_id, offer_key, qualification_key); a key the engine has at both levels for
-- one offer is matched on the level too (the statement lists the program-level one first).
-- met and waived compare as they are; target and actual to 6 places, when the statement gives them.
-- docs/reconciliation.md.
with engine as (
    select * from {{ ref('incentives', 'qualification_results') }}
),

statement as (
    select * from {{ ref('incentives', 'stg_incentives__statement_qualifications') }}
),

statement_earnings as (
    select * from {{ ref('incentives', 'stg_incentives__statement_earnings') }}
),

offers as (
    select * from {{ ref('incentives', 'stg_incentives__rules_offers') }}
),

participants as (
    {{ incentives._statement_participants('statement_earnings', 'statement') }}
),

engine_side as (
    select
        engine.*,
        count(*) over (partition by engine.entity_id, engine.offer_key, engine.qualification_key) > 1
            as both_levels
    from engine
    inner join participants on participants.entity_id = engine.entity_id
),

matches as (
    select
        engine_side.entity_id,
        engine_side.offer_key,
        engine_side.qualification_key,
        engine_side.qualification_level,
        statement.qualification_level as statement_level
    from engine_side
    inner join statement
        on statement.entity_id = engine_side.entity_id
        and statement.offer_key = engine_side.offer_key
        and statement.qualification_key = engine_side.qualification_key
        and (statement.qualification_level = engine_side.qualification_level
             or (statement.qualification_level is null and not engine_side.both_levels))
),

compared as (
    -- matched, then the engine's alone, then the statement's alone
    select
        engine_side.entity_id,
        engine_side.program_key,
        engine_side.offer_key,
        engine_side.qualification_key,
        engine_side.qualification_level,
        true as in_engine,
        true as in_statement,
        engine_side.met as engine_met,
        statement.met as statement_met,
        engine_side.waived as engine_waived,
        statement.waived as statement_waived,
        engine_side.target as engine_target,
        statement.target as statement_target,
        engine_side.actual as engine_actual,
        statement.actual as statement_actual
    from matches
    inner join engine_side
        on engine_side.entity_id = matches.entity_id
        and engine_side.offer_key = matches.offer_key
        and engine_side.qualification_key = matches.qualification_key
        and engine_side.qualification_level = matches.qualification_level
    inner join statement
        on statement.entity_id = matches.entity_id
        and statement.offer_key = matches.offer_key
        and statement.qualification_key = matches.qualification_key
        and coalesce(statement.qualification_level, '') = coalesce(matches.statement_level, '')
    union all
    select
        engine_side.entity_id,
        engine_side.program_key,
        engine_side.offer_key,
        engine_side.qualification_key,
        engine_side.qualification_level,
        true,
        false,
        engine_side.met,
        cast(null as boolean),
        engine_side.waived,
        cast(null as boolean),
        engine_side.target,
        {{ incentives.cast_measure('null') }},
        engine_side.actual,
        {{ incentives.cast_measure('null') }}
    from engine_side
    left join matches
        on matches.entity_id = engine_side.entity_id
        and matches.offer_key = engine_side.offer_key
        and matches.qualification_key = engine_side.qualification_key
        and matches.qualification_level = engine_side.qualification_level
    where matches.entity_id is null
    union all
    select
        statement.entity_id,
        offers.program_key,
        statement.offer_key,
        statement.qualification_key,
        statement.qualification_level,
        false,
        true,
        cast(null as boolean),
        statement.met,
        cast(null as boolean),
        statement.waived,
        {{ incentives.cast_measure('null') }},
        statement.target,
        {{ incentives.cast_measure('null') }},
        statement.actual
    from statement
    left join offers on offers.offer_key = statement.offer_key
    left join matches
        on matches.entity_id = statement.entity_id
        and matches.offer_key = statement.offer_key
        and matches.qualification_key = statement.qualification_key
        and coalesce(matches.statement_level, '') = coalesce(statement.qualification_level, '')
    where matches.entity_id is null
),

classified as (
    select
        compared.*,
        case
            when not in_statement then null
            when not in_engine then null
            when engine_met <> statement_met then 'met'
            when coalesce(engine_waived <> statement_waived, false) then 'waived'
            when statement_target is not null
                 and coalesce({{ incentives._compared('engine_target') }} <> {{ incentives._compared('statement_target') }}, true)
                then 'target'
            when statement_actual is not null
                 and coalesce({{ incentives._compared('engine_actual') }} <> {{ incentives._compared('statement_actual') }}, true)
                then 'actual'
        end as differing_column
    from compared
),

final as (
    select
        entity_id,
        program_key,
        offer_key,
        qualification_key,
        qualification_level,
        case
            when not in_statement then 'missing_in_statement'
            when not in_engine then 'missing_in_engine'
            when differing_column is not null then 'differs'
            else 'matched'
        end as status,
        in_engine and in_statement and differing_column is null as agrees,
        differing_column,
        engine_met,
        statement_met,
        engine_waived,
        statement_waived,
        {{ incentives.cast_measure('engine_target') }} as engine_target,
        {{ incentives.cast_measure('statement_target') }} as statement_target,
        {{ incentives.cast_measure('engine_actual') }} as engine_actual,
        {{ incentives.cast_measure('statement_actual') }} as statement_actual,
        {{ incentives.run_id() }} as run_id
    from classified
)

select * from final
