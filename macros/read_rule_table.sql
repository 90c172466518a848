{#- read_rule_table(name, columns): the compiled rule table `name` (the seed `incentives__<name>`
    written by `incentives compile`, see compiler/rule_tables.py) with the staging model's typed
    columns. The casts keep every engine on the same types whether the table was loaded by `dbt
    seed` or copied as text by `incentives run`. tests/test_compiler.py checks that each staging
    model lists exactly the columns compiler/rule_tables.py declares. -#}
{% macro read_rule_table(name, columns) %}{{ return(adapter.dispatch('read_rule_table', 'incentives')(name, columns)) }}{% endmacro %}

{% macro default__read_rule_table(name, columns) -%}
(select
  {%- for column, type in columns.items() %}
  cast({{ column }} as {{ type }}) as {{ column }}{{ "," if not loop.last }}
  {%- endfor %}
 from {{ incentives.rule_table(name) }})
{%- endmacro %}

{#- rule_table(name): the seed `incentives__<name>` (compiled rule table or catalogue) of the root
    project (`project_name`: this repository when it is the dbt project, else the project that
    installs the package). The package ships no seeds. The ref names the root project, so it
    finds the project's seeds whatever dbt's ref flags, and dbt has nothing to warn about (a
    package's ref resolved in the root without naming it warns, PackageNodeDependsOnRootProjectNode).
    A project that has not compiled its programs fails at parse: a node named incentives__<name>
    is not found. An installed package whose own seeds/ holds a compile (a local checkout where
    `incentives compile` or `make run` wrote them) would load them into the project's warehouse:
    that fails the build, naming the file. -#}
{% macro rule_table(name) -%}
  {%- if var('incentives_rules_project', none) is not none -%}
    {{ exceptions.raise_compiler_error("The var incentives_rules_project is no longer used (set to '"
       ~ var('incentives_rules_project') ~ "'): remove it. The package reads the seeds incentives__<table>"
       ~ " that `incentives compile --out <your seeds folder>` writes (docs/dbt-package.md).") }}
  {%- endif -%}
  {%- set seed = 'incentives__' ~ name -%}
  {%- if execute and project_name != 'incentives' -%}
    {%- for node in graph.nodes.values() if node.resource_type == 'seed' and node.package_name == 'incentives' and node.name == seed -%}
      {{ exceptions.raise_compiler_error("The installed package incentives holds a compiled rule table in its own"
         ~ " seeds folder (" ~ node.original_file_path ~ "): remove the package's seeds/*.csv; the rule tables"
         ~ " are the seeds of project " ~ project_name ~ " (docs/dbt-package.md).") }}
    {%- endfor -%}
  {%- endif -%}
  {{ return(ref(project_name, seed)) }}
{%- endmacro %}
