{#- read_rule_table(name, columns): the compiled rule table `name` (a seed written by
    `incentives compile`, see seeds/_incentive_rules.yml) with the staging model's typed columns.
    The casts keep every engine on the same types whether the table was loaded by `dbt seed` or
    copied as text by `incentives run`. tests/test_compiler.py checks that each staging model
    lists exactly the columns compiler/rule_tables.py declares. -#}
{% macro read_rule_table(name, columns) %}{{ return(adapter.dispatch('read_rule_table', 'incentives')(name, columns)) }}{% endmacro %}

{% macro default__read_rule_table(name, columns) -%}
(select
  {%- for column, type in columns.items() %}
  cast({{ column }} as {{ type }}) as {{ column }}{{ "," if not loop.last }}
  {%- endfor %}
 from {{ incentives.rule_table(name) }})
{%- endmacro %}

{#- rule_table(name): the seed `name` of the project holding the compiled rule tables (var
    incentives_rules_project: this one, or the project that installs it as a package). -#}
{% macro rule_table(name) %}{{ return(ref(var('incentives_rules_project', 'incentives'), name)) }}{% endmacro %}
