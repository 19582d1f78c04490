{#- windowed_incremental: the tables a model keeps, how they are created, and how a staged
    next version is applied to them. -#}


{#- An empty partitioned table shaped like `select_sql` (plus batch_id, when that is the
    partition column); nothing happens when it exists. `clauses`: its options, location,
    comment and tblproperties (_sw_incremental_table_clauses). -#}
{% macro _sw_incremental_create_sql(relation, select_sql, partition_col, clauses='') -%}
create table if not exists {{ relation }}
using parquet
partitioned by ({{ partition_col }})
{{ clauses }}
as
select *{{ ', cast(0 as bigint) as batch_id' if partition_col == 'batch_id' }}
from (
    {{ select_sql }}
) as __sw_shape
where false
{%- endmacro %}


{#- Runs `create_sql` (a CREATE TABLE IF NOT EXISTS ... AS SELECT of _sw_incremental_create_sql or
    _sw_incremental_state_ddl) unless dbt's relation cache holds `relation` (listed when dbt
    started; the run's own drops go through adapter.drop_relation, which updates it): Spark
    analyses the whole SELECT even when the table exists. Under a location_root (`own_folder`) the table's folder
    (`<root>/<table>`) may hold the files of the table a --full-refresh (or a kill inside a DROP
    TABLE) dropped: dropping a table with a LOCATION leaves its files. Spark 4.1 and older
    overwrite that folder; Spark 4.3 refuses a CREATE TABLE AS into a non-empty folder unless
    spark.sql.legacy.allowNonEmptyLocationInCTAS is set, so it is set for this statement and
    then given its value back: the old rows never come back, on every release. -#}
{% macro _sw_incremental_create(relation, create_sql, own_folder) %}
    {%- if adapter.get_relation(relation.database, relation.schema, relation.identifier) is not none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if not own_folder -%}
        {%- do run_query(create_sql) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set flag = 'spark.sql.legacy.allowNonEmptyLocationInCTAS' -%}
    {%- set before = spark_windows._sw_swap_session(flag, 'true') -%}
    {%- do run_query(create_sql) -%}
    {%- do run_query(spark_windows._sw_set_session_sql(flag, before)) -%}
{% endmacro %}


{#- The state table, created empty by a CREATE TABLE AS SELECT: under a location_root, a table
    declared with its columns only would take up the files a dropped one left in its folder. -#}
{% macro _sw_incremental_state_ddl(relation, clauses='') -%}
create table if not exists {{ relation }}
using parquet
{{ clauses }}
as
select
    cast(null as bigint) as batch_id,
    cast(null as timestamp) as max_ingestion_time,
    cast(null as timestamp) as max_event_time,
    cast(null as timestamp) as watermark,
    cast(null as bigint) as new_rows,
    cast(null as bigint) as late_rows,
    cast(null as bigint) as windows_updated,
    cast(null as timestamp) as run_started_at,
    cast(null as string) as pending_table,
    cast(null as string) as config_fingerprint,
    cast(null as string) as config,
    cast(null as string) as arrival_counts
where false
{%- endmacro %}


{#- The clauses of each table the model keeps, from its dbt config, with dbt-spark's own
    macros where they fit: location_clause (under location_root, a folder named like the
    table; the other tables get a folder named like themselves), comment_clause
    (persist_docs: the model's description on the table; with on_watermark on the view
    instead), tblproperties_clause (every table). `clauses.table` is for `target`, the table
    of windows (partitions overwritten dynamically).
    The staging tables stay in the schema's default location: they are dropped when applied,
    and dropping a table with a LOCATION leaves its files. -#}
{% macro _sw_incremental_table_clauses(tables, target) %}
    {%- set location_root = config.get('location_root') -%}
    {%- set properties = tblproperties_clause() -%}
    {%- set clauses = {} -%}
    {%- for name, relation in tables.items() -%}
        {%- set location = "location '" ~ location_root ~ "/" ~ relation.identifier ~ "'\n" if location_root is not none else '' -%}
        {%- do clauses.update({name: location ~ properties}) -%}
    {%- endfor -%}
    {%- set overwrite = "options ('partitionOverwriteMode' = 'dynamic')\n" -%}
    {%- if target.identifier == this.identifier -%}
        {%- do clauses.update({'table': overwrite ~ location_clause() ~ '\n' ~ comment_clause() ~ '\n' ~ properties}) -%}
    {%- else -%}
        {%- do clauses.update({'table': overwrite ~ clauses.windows}) -%}
    {%- endif -%}
    {{ return(clauses) }}
{% endmacro %}


{#- With on_watermark, the model is a view of the windows the watermark has passed (`target`
    holds every window). Made again by every run: cheap, and a crash before it is repaired. -#}
{% macro _sw_incremental_shown_view(cfg, view, target) %}
    {%- set existing = adapter.get_relation(view.database, view.schema, view.identifier) -%}
    {%- if existing is not none and not existing.is_view -%}
        {%- do adapter.drop_relation(existing) -%}
    {%- endif -%}
    {%- set columns = cfg.group_cols + ['window_start', 'window_end'] + cfg.agg_names + ['is_final', 'revision', 'timing', 'window_partition'] -%}
    {%- do run_query('create or replace view ' ~ view ~ '\n' ~ comment_clause() ~ '\n' ~ tblproperties_clause() ~ '\nas\nselect '
        ~ columns | join(', ') ~ '\nfrom ' ~ target ~ '\nwhere watermark_passed') -%}
{% endmacro %}


{#- Rewrites the table's partitions from a staging table (recovery applies a committed one again;
    a run writes the same two steps itself, the overwrite as its main statement): a dynamic
    INSERT OVERWRITE of the partitions it has rows for (_sw_incremental_overwrite_sql), then, for
    sessions, _sw_incremental_drop_emptied. Both steps can be repeated. -#}
{% macro _sw_incremental_apply(cfg, target, pending) %}
    {%- do run_query(spark_windows._sw_incremental_overwrite_sql(cfg, target, pending)) -%}
    {%- do spark_windows._sw_incremental_drop_emptied(cfg, target, pending) -%}
{% endmacro %}


{#- Sessions: drops the partitions the run read (role 'drop') that the staging table has no
    session for, their every session having moved into a merge. Nothing for fixed windows. -#}
{% macro _sw_incremental_drop_emptied(cfg, target, pending) %}
    {%- if cfg.session -%}
        {%- set emptied = run_query("select distinct date_format(__sw_a.window_partition, 'yyyy-MM-dd HH:mm:ss.SSSSSS')\nfrom "
            ~ pending ~ " as __sw_a\nleft anti join (select window_partition from " ~ pending ~ " where __sw_role in ('fresh', 'kept')) as __sw_b\n"
            ~ "    on __sw_a.window_partition = __sw_b.window_partition\nwhere __sw_a.__sw_role = 'drop'") -%}
        {%- for row in emptied.rows -%}
            {%- do run_query('alter table ' ~ target ~ " drop if exists partition (window_partition = '" ~ row[0] ~ "')") -%}
        {%- endfor -%}
    {%- endif -%}
{% endmacro %}
