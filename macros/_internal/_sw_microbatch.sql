{#- dbt's microbatch models (incremental_strategy='microbatch'): dbt builds the model once per
    batch, a range [start, end) of time, filters each ref() of an input that declares an
    `event_time` to that range, and dbt-spark overwrites the partitions the batch writes.

    A window belongs to the batch that holds its window_start (the model declares
    event_time='window_start' and partitions by a column of window_start of the batch's grain).
    Its rows may lie after the batch's end (a 1-hour hop that starts at 23:55), so a macro reads
    its input unfiltered from the batch's start up to the batch's end plus the longest window
    (`reach_us`), computes the windows as always, and keeps those that start in the batch: the
    same windows, with the same rows, as the same call in a table model. -#}


{#- The batch dbt is building, as {'start_us', 'end_us'} (microseconds since 1970-01-01 UTC), or
    none outside a microbatch model's batch (every other model, `dbt compile`, unit tests). -#}
{% macro _sw_batch() %}
    {%- set batch = model.get('batch') if model is defined and model is mapping else none -%}
    {%- if not batch -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return({
        'start_us': spark_windows._sw_datetime_us(batch.event_time_start),
        'end_us': spark_windows._sw_datetime_us(batch.event_time_end),
    }) }}
{% endmacro %}


{#- A datetime (naive: UTC, as dbt's batch bounds) as microseconds since 1970-01-01 UTC. -#}
{% macro _sw_datetime_us(value) %}
    {%- set utc = modules.pytz.utc -%}
    {%- set aware = value if value.tzinfo else value.replace(tzinfo=utc) -%}
    {%- set delta = aware - modules.datetime.datetime(1970, 1, 1, tzinfo=utc) -%}
    {{ return((delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds) }}
{% endmacro %}


{#- The input a macro reads: `relation` itself outside a microbatch batch. In a batch, the table
    behind the ref() or source() (dbt's filter to the batch removed; --empty's limit kept) with
    the rows from the batch's start to its end plus `reach_us`, the longest window: every row of
    every window that starts in the batch. A CTE, a query or an ephemeral model is refused: dbt
    has filtered the refs inside it to the batch, so windows reaching past the batch's end
    would miss their later rows. -#}
{% macro _sw_batch_input(relation, time_col, reach_us, macro_name, mode=none) %}
    {%- set batch = spark_windows._sw_batch() -%}
    {%- if batch is none -%}
        {{ return(relation) }}
    {%- endif -%}
    {#- window_aggregate's wall-clock path: its rows were read for the batch already, and its
        row-copy plan calls the table-valued macros again over them (a query, no ref()) -#}
    {%- if time_col == '__sw_wall_ts' -%}
        {{ return(relation) }}
    {%- endif -%}
    {%- if (mode or {}).get('kind') == 'zone' -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": time_zone ('" ~ mode.zone ~ "') cannot be used in a microbatch model (incremental_strategy='microbatch') yet: "
            ~ "dbt's batches are UTC instants and the windows start at wall-clock times of the zone. Build the model as a table, "
            ~ "or leave time_zone out and use batch_size 'day' with an offset for a zone without daylight-saving time") }}
    {%- endif -%}
    {%- if not spark_windows._sw_is_table(relation) -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": in a microbatch model, relation (" ~ relation ~ ") must be ref('...') or source('...', '...') "
            ~ "of a table or view, not a CTE, a query or an ephemeral model: dbt filters the refs inside those to the batch, "
            ~ "and windows that end after the batch's end need the rows after it. Pass the ref() to " ~ macro_name
            ~ " directly, and filter or compute columns in a view model or in the macro's aggregates") }}
    {%- endif -%}
    {#- a timestamp column is compared as it is, so Spark can skip files by their statistics;
        another type (date, timestamp_ntz) or an unknown one through _sw_ts, as the windows see it -#}
    {%- set types = spark_windows._sw_column_types(spark_windows._sw_describe(relation)) -%}
    {%- set field = time_col if types.get(time_col.strip().strip('`') | lower) == 'timestamp' else spark_windows._sw_ts(time_col) -%}
    {%- set datetime = modules.datetime -%}
    {%- set start = datetime.datetime(1970, 1, 1, tzinfo=modules.pytz.utc) + datetime.timedelta(microseconds=batch.start_us) -%}
    {#- no upper bound where the batch's end plus the reach passes year 9999 -#}
    {%- set last_us = spark_windows._sw_datetime_us(datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)) -%}
    {%- set end = none if batch.end_us + reach_us > last_us
        else start + datetime.timedelta(microseconds=batch.end_us - batch.start_us + reach_us) -%}
    {{ return(relation.incorporate(event_time_filter={'field_name': field, 'start': start, 'end': end})) }}
{% endmacro %}


{#- The windows of `sql` (a parenthesized query with a window_start column) that start in the
    batch being built; `sql` itself outside a microbatch batch. -#}
{% macro _sw_batch_output(sql) %}
    {%- set batch = spark_windows._sw_batch() -%}
    {%- if batch is none -%}
        {{ return(sql) }}
    {%- endif -%}
    {%- set windows -%}
(
    select *
    from {{ sql }} as __sw_batch
    where
        window_start >= timestamp_micros({{ batch.start_us }})
        and window_start < timestamp_micros({{ batch.end_us }})
)
    {%- endset -%}
    {{ return(windows) }}
{% endmacro %}


{#- What cannot be computed batch by batch is refused in a microbatch model, never split at the
    batch's edges: `why` says what depends on rows outside the batch. -#}
{% macro _sw_refuse_in_microbatch(macro_name, why) %}
    {%- if spark_windows._sw_batch() is not none -%}
        {{ exceptions.raise_compiler_error(
            macro_name ~ ": cannot run in a microbatch model (incremental_strategy='microbatch'): " ~ why
            ~ ", so a batch would split or miss them. Build it with materialized='windowed_incremental', which keeps "
            ~ "what it needs across runs (README, \"Microbatch or windowed_incremental\"), or in a table model") }}
    {%- endif -%}
{% endmacro %}
