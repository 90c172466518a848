with 

direct_exposure_relationships as (
    select * from {{ ref('int_all_dag_relationships') }}
    where 
        distance = 1
        and child_resource_type = 'exposure'
        and not (
                parent_resource_type = 'model'
                and parent_is_public = cast(1 as {{ dbt.type_boolean() }})
            )
        and parent_is_excluded = cast(0 as {{ dbt.type_boolean() }})
),

final as (

    select 
        child as exposure_name,
        parent as parent_resource_name,
        parent_access,
        parent_resource_type

    from direct_exposure_relationships

)

select * from final

{{ filter_exceptions() }}