-- One row per participant a statement was read for x offer, on either side: the engine's total
-- and the statement's, the variance (engine - statement: positive = the statement pays less than
-- the engine), the lines per status, the qualifiers on both sides and `explanation`, the first
-- cause that accounts for the variance, in this order: the participant or the offer unknown to the
-- engine; a qualification evaluated differently that turns the offer's qualifier; lines paid at
-- another tier (rate key); transactions missing on one side; amounts differing; a qualification
-- that differs without changing what is paid. Null when the offer agrees. docs/reconciliation.md.
with pairs as (
    select * from {{ ref('incentives', 'int_incentives__reconciliation_pairs') }}
),

earnings as (
    select * from {{ ref('incentives', 'reconciliation_earnings') }}
),

qualifications as (
    select * from {{ ref('incentives', 'reconciliation_qualifications') }}
),

earning_totals as (
    select
        entity_id,
        offer_key,
        sum(coalesce(engine_incentive_amount, 0)) as engine_incentive_amount,
        sum(coalesce(statement_incentive_amount, 0)) as statement_incentive_amount,
        sum(case when status = 'matched' then 1 else 0 end) as matched_rows,
        sum(case when status = 'amount_differs' then 1 else 0 end) as amount_differs_rows,
        sum(case when status = 'missing_in_statement' then 1 else 0 end) as missing_in_statement_rows,
        sum(case when status = 'missing_in_engine' then 1 else 0 end) as missing_in_engine_rows,
        sum(case when status = 'amount_differs' then incentive_amount_difference else 0 end) as amount_differs_amount,
        sum(case when status = 'missing_in_statement' then incentive_amount_difference else 0 end)
            as missing_in_statement_amount,
        sum(case when status = 'missing_in_engine' then incentive_amount_difference else 0 end)
            as missing_in_engine_amount,
        sum(case when statement_incentive_rate_key <> incentive_rate_key then 1 else 0 end) as rate_key_rows,
        sum(case when statement_incentive_rate_key <> incentive_rate_key then incentive_amount_difference else 0 end)
            as rate_key_amount,
        min(case when statement_incentive_rate_key <> incentive_rate_key then incentive_rate_key end) as engine_rate_key,
        min(case when statement_incentive_rate_key <> incentive_rate_key then statement_incentive_rate_key end)
            as statement_rate_key,
        -- the first explaining column, in the order the earning rows check them
        min(case differing_column
                when 'incentivized_quantity' then 1 when 'incentivized_amount' then 2
                when 'incentive_rate_value' then 3 when 'offer_sku_pay_rate' then 4
                when 'incentive_rate_key' then 5 when 'incentive_amount' then 6 end) as first_differing
    from earnings
    group by entity_id, offer_key
),

disagreeing_qualifications as (
    -- the qualifications that do not agree, the one that explains first ranked 1: met or waived
    -- evaluated differently, then listed on one side only, then target or actual; program level
    -- first, then by key
    select
        qualifications.*,
        count(*) over (partition by entity_id, offer_key) as qualifications_differing,
        row_number() over (
            partition by entity_id, offer_key
            order by
                case when differing_column in ('met', 'waived') then 0
                     when status <> 'differs' then 1 else 2 end,
                case when qualification_level = 'program' then 0 else 1 end,
                qualification_key
        ) as explaining_rank
    from qualifications
    where not agrees
),

first_qualification as (
    select * from disagreeing_qualifications where explaining_rank = 1
),

joined as (
    select
        pairs.entity_id,
        pairs.program_key,
        pairs.offer_key,
        pairs.strategy_key,
        pairs.participant_known,
        pairs.offer_known,
        pairs.engine_qualified,
        pairs.statement_qualified,
        pairs.engine_tier_key,
        pairs.statement_tier_key,
        coalesce(earning_totals.engine_incentive_amount, 0) as engine_incentive_amount,
        coalesce(earning_totals.statement_incentive_amount, 0) as statement_incentive_amount,
        coalesce(earning_totals.engine_incentive_amount, 0) - coalesce(earning_totals.statement_incentive_amount, 0)
            as variance,
        coalesce(earning_totals.matched_rows, 0) as matched_rows,
        coalesce(earning_totals.amount_differs_rows, 0) as amount_differs_rows,
        coalesce(earning_totals.missing_in_statement_rows, 0) as missing_in_statement_rows,
        coalesce(earning_totals.missing_in_engine_rows, 0) as missing_in_engine_rows,
        coalesce(first_qualification.qualifications_differing, 0) as qualifications_differing,
        earning_totals.amount_differs_amount,
        earning_totals.missing_in_statement_amount,
        earning_totals.missing_in_engine_amount,
        coalesce(earning_totals.rate_key_rows, 0) as rate_key_rows,
        earning_totals.rate_key_amount,
        earning_totals.engine_rate_key,
        earning_totals.statement_rate_key,
        case earning_totals.first_differing
            when 1 then 'incentivized_quantity' when 2 then 'incentivized_amount'
            when 3 then 'incentive_rate_value' when 4 then 'offer_sku_pay_rate'
            when 5 then 'incentive_rate_key' when 6 then 'incentive_amount' end as first_differing_column,
        first_qualification.qualification_key as q_key,
        first_qualification.qualification_level as q_level,
        first_qualification.status as q_status,
        first_qualification.differing_column as q_column,
        first_qualification.engine_met as q_engine_met,
        first_qualification.statement_met as q_statement_met,
        first_qualification.engine_waived as q_engine_waived,
        first_qualification.engine_actual as q_engine_actual,
        first_qualification.statement_actual as q_statement_actual,
        first_qualification.engine_target as q_engine_target,
        first_qualification.statement_target as q_statement_target
    from pairs
    left join earning_totals
        on earning_totals.entity_id = pairs.entity_id and earning_totals.offer_key = pairs.offer_key
    left join first_qualification
        on first_qualification.entity_id = pairs.entity_id and first_qualification.offer_key = pairs.offer_key
),

classified as (
    select
        joined.*,
        amount_differs_rows + missing_in_statement_rows + missing_in_engine_rows = 0
            and qualifications_differing = 0
            and abs(variance) <= {{ incentives.reconciliation_tolerance() }} as agrees,
        q_column in ('met', 'waived')
            and coalesce(engine_qualified, false) <> coalesce(statement_qualified, false) as qualifier_turns
    from joined
),

{%- set t = incentives._money_text -%}
{%- set c = incentives._counted %}

explained as (
    select
        classified.*,
        case
            when not participant_known then {{ dbt.concat([
                "'the engine has no participant '", "entity_id",
                "' (no transactions or entity properties): the lines of its statement are missing_in_engine ('",
                t('variance'), "')'"]) }}
            when not offer_known then {{ dbt.concat([
                "'the engine has no offer '", "offer_key", "' in its programs: '",
                c('missing_in_engine_rows', 'statement line is', 'statement lines are'), "' missing_in_engine ('",
                t('variance'), "')'"]) }}
            when engine_qualified is null then {{ dbt.concat([
                "'the engine does not evaluate this participant for the program of the offer (enrollments): '",
                c('missing_in_engine_rows', 'statement line is', 'statement lines are'), "' missing_in_engine ('",
                t('variance'), "')'"]) }}
            when agrees then null
            when qualifier_turns then {{ dbt.concat([
                "'qualification '", "q_key", "' ('", "q_level", "' level) is '",
                "case when q_column = 'waived' then 'waived differently' when q_engine_met then 'met in the engine, not in the statement' else 'met in the statement, not in the engine' end",
                "' (actual '", "coalesce(" ~ t('q_engine_actual') ~ ", 'none')",
                "' in the engine, '", "coalesce(" ~ t('q_statement_actual') ~ ", 'none')",
                "' in the statement; target '", "coalesce(" ~ t('q_engine_target') ~ ", 'none')",
                "'): the offer is qualified '",
                "case when engine_qualified then 'in the engine only' else 'in the statement only' end",
                "' (variance '", t('variance'), "')'"]) }}
            when rate_key_rows > 0 then {{ dbt.concat([
                "case when strategy_key = 'stepped' then 'tier: ' else 'rate key: ' end",
                "'the statement pays '", c('rate_key_rows', 'line', 'lines'), "' at '", "statement_rate_key",
                "' where the engine pays '", "engine_rate_key", "' ('", t('rate_key_amount'), "')'"]) }}
            when missing_in_statement_rows > 0 and missing_in_engine_rows > 0 then {{ dbt.concat([
                c('missing_in_statement_rows', 'transaction the engine pays is', 'transactions the engine pays are'),
                "' missing in the statement ('", t('missing_in_statement_amount'), "'); '",
                c('missing_in_engine_rows', 'statement line is', 'statement lines are'),
                "' not paid by the engine ('", t('missing_in_engine_amount'), "')'"]) }}
            when missing_in_statement_rows > 0 then {{ dbt.concat([
                c('missing_in_statement_rows', 'transaction the engine pays is', 'transactions the engine pays are'),
                "' missing in the statement ('", t('missing_in_statement_amount'), "')'"]) }}
            when missing_in_engine_rows > 0 then {{ dbt.concat([
                c('missing_in_engine_rows', 'statement line is', 'statement lines are'),
                "' not paid by the engine ('", t('missing_in_engine_amount'), "')'"]) }}
            when amount_differs_rows > 0 then {{ dbt.concat([
                c('amount_differs_rows', 'line differs', 'lines differ'), "' in amount ('", t('amount_differs_amount'),
                "'), first by '", "first_differing_column"]) }}
            when q_key is not null then {{ dbt.concat([
                "'qualification '", "q_key", "' ('", "coalesce(q_level, 'unknown')", "' level) '",
                "case q_status when 'missing_in_statement' then 'is missing in the statement'"
                ~ " when 'missing_in_engine' then 'is not in the results of the engine'"
                ~ " else concat('differs in ', q_column) end",
                "'; what the offer pays is the same'"]) }}
            else {{ dbt.concat(["'matched lines within the tolerance add up to a variance of '", t('variance')]) }}
        end as explanation
    from classified
),

final as (
    select
        entity_id,
        program_key,
        offer_key,
        strategy_key,
        participant_known,
        offer_known,
        engine_qualified,
        statement_qualified,
        engine_tier_key,
        statement_tier_key,
        {{ incentives.cast_money('engine_incentive_amount') }} as engine_incentive_amount,
        {{ incentives.cast_money('statement_incentive_amount') }} as statement_incentive_amount,
        {{ incentives.cast_money('variance') }} as variance,
        cast(matched_rows as bigint) as matched_rows,
        cast(amount_differs_rows as bigint) as amount_differs_rows,
        cast(missing_in_statement_rows as bigint) as missing_in_statement_rows,
        cast(missing_in_engine_rows as bigint) as missing_in_engine_rows,
        cast(qualifications_differing as bigint) as qualifications_differing,
        agrees,
        explanation,
        {{ incentives.run_id() }} as run_id
    from explained
)

select * from final
