-- One row per participant x offer with money still on the table: an unqualified offer that would
-- pay (potential_if_qualified > 0), or a stepped offer whose next tier pays more
-- (next_tier_uplift > 0). The next step, how far it is (gap) and what it is worth
-- (amount_at_stake): for an unqualified offer that would pay, qualifying: the blocking
-- qualification closest to met; otherwise the next tier.
with offer_results as (
    select * from {{ ref('incentives', 'offer_results') }}
),

qualification_results as (
    select * from {{ ref('incentives', 'qualification_results') }}
),

opportunities as (
    select
        *,
        not qualified and potential_if_qualified > 0 as to_qualify
    from offer_results
    where (not qualified and potential_if_qualified > 0) or next_tier_uplift > 0
),

blocking_measures as (
    -- the blocking qualifications with a difference, the closest first (ties: by key)
    select
        qualification_results.entity_id,
        qualification_results.offer_key,
        qualification_results.qualification_key,
        abs(qualification_results.difference) as shortfall,
        row_number() over (
            partition by qualification_results.entity_id, qualification_results.offer_key
            order by abs(qualification_results.difference), qualification_results.qualification_key
        ) as closeness
    from qualification_results
    inner join opportunities
        on opportunities.entity_id = qualification_results.entity_id
        and opportunities.offer_key = qualification_results.offer_key
    where opportunities.to_qualify
        and qualification_results.difference is not null
        and not qualification_results.met
        and not qualification_results.waived
        and {{ dbt.concat(["','", "case qualification_results.qualification_level when 'program'"
                           " then opportunities.blocking_program_qualifications"
                           " else opportunities.blocking_offer_qualifications end", "','"]) }}
            like {{ dbt.concat(["'%,'", "qualification_results.qualification_key", "',%'"]) }}
),

closest as (
    select * from blocking_measures where closeness = 1
),

final as (
    select
        opportunities.entity_id,
        opportunities.program_key,
        opportunities.offer_key,
        opportunities.qualified,
        opportunities.incentive_amount,
        opportunities.potential_if_qualified,
        opportunities.current_tier_key,
        opportunities.next_tier_key,
        opportunities.next_tier_incentive_amount,
        opportunities.next_tier_uplift,
        case when opportunities.to_qualify then 'qualification' else 'next_tier' end as gap_source,
        case when opportunities.to_qualify then closest.qualification_key
             else opportunities.next_tier_key end as gap_key,
        {{ incentives.cast_measure("case when opportunities.to_qualify then closest.shortfall"
                                   " else opportunities.gap_to_next_tier end") }} as gap,
        {{ incentives.cast_money("case when opportunities.to_qualify then opportunities.potential_if_qualified"
                                 " else opportunities.next_tier_uplift end") }} as amount_at_stake,
        opportunities.blocking_program_qualifications,
        opportunities.blocking_offer_qualifications,
        opportunities.run_id
    from opportunities
    left join closest
        on closest.entity_id = opportunities.entity_id
        and closest.offer_key = opportunities.offer_key
)

select * from final
