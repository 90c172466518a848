-- MetricFlow's time spine: one row per day from 2000-01-01 to 2050-12-31 (a view: nothing is
-- built). The semantic layer's metrics are aggregated over it by metric_time.
with days as (
    {{ dbt.date_spine("day", "cast('2000-01-01' as date)", "cast('2051-01-01' as date)") }}
),

final as (
    select cast(date_day as date) as date_day
    from days
)

select * from final
