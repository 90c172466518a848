-- One row per participant x qualification (program- and offer-level) of the programs it is
-- evaluated for: target, actual, difference and met (before waivers). Each qualification type's
-- macro (macros/qualifications/) names its measure, and the measure's model
-- (int_incentives__qualification_measures_<measure>) evaluates the types of that measure; this
-- model writes their rows. A measure named by a macro without its model fails at parse.
with measured as (
    {%- for measure in incentives.measures_of_types() %}
    {%- if not loop.first %}
    union all
    {%- endif %}
    select * from {{ ref('incentives', 'int_incentives__qualification_measures_' ~ measure) }}
    {%- endfor %}
),

final as (
    select * from measured
)

select * from final
