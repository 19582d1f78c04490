{#- Mergeable sketches in window_aggregate: an aggregate written as a sketch read out of one
    sketch of the window's values is computed from one sketch per pane, merged per window.

    hll   hll_sketch_estimate(hll_sketch_agg(expr[, lgConfigK])): DataSketches HLL sketches,
          merged by union (hll_union_agg in running frames, hll_union for two). A union keeps
          the largest value of each register, so the merged sketch holds the registers (or, for
          few values, the exact list of hashes) of one sketch built over the window's rows.
    kll   kll_sketch_get_quantile_<type>(kll_sketch_agg_<type>(expr[, k]), rank), type bigint,
          double or float: DataSketches KLL sketches, merged with kll_merge_agg_<type> and
          kll_sketch_merge_<type>. Exact while a window holds at most k values; beyond that a
          merge compacts as a sketch over the rows would, but with other random choices: the
          result is within KLL's rank error of the exact quantile, not equal to GROUP BY's.

    A sketch cannot be subtracted, so hop windows merge them with two stacks, never a sweep.
-#}

{#- The sketch aggregate of `function(arg)` as parsed: {'kind', 'arg' (the sketch function's
    arguments), 'type' (kll: bigint, double or float), 'rank' (kll: the rank argument as
    written)}; none when it is not one of the forms above. -#}
{% macro _sw_sketch_aggregate(function, arg) %}
    {%- set inner = spark_windows._sw_split_call(arg) -%}
    {%- if inner is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if function == 'hll_sketch_estimate' and inner[0] == 'hll_sketch_agg' and inner[2] == '' -%}
        {{ return({'kind': 'hll', 'arg': inner[1]}) }}
    {%- endif -%}
    {%- set prefix = 'kll_sketch_get_quantile_' -%}
    {%- set type = function[prefix | length:] -%}
    {%- if function.startswith(prefix) and type in ['bigint', 'double', 'float']
        and inner[0] == 'kll_sketch_agg_' ~ type and inner[2].startswith(',') and inner[2][1:].strip() != '' -%}
        {{ return({'kind': 'kll', 'arg': inner[1], 'type': type, 'rank': inner[2][1:].strip()}) }}
    {%- endif -%}
    {{ return(none) }}
{% endmacro %}


{#- The partial of a sketch aggregate: [(role, partial expression, merge, argument)]; the merge
    is the aggregate that merges sketches in a running frame. -#}
{% macro _sw_sketch_partials(agg) -%}
    {%- if agg.kind == 'hll' -%}
        {{ return([('m', 'hll_sketch_agg(' ~ agg.arg ~ ')', 'hll_union_agg', agg.arg)]) }}
    {%- endif -%}
    {{ return([('m', 'kll_sketch_agg_' ~ agg.type ~ '(' ~ agg.arg ~ ')', 'kll_merge_agg_' ~ agg.type, agg.arg)]) }}
{%- endmacro %}


{#- Merges two sketches, either of which may be NULL (no pane). -#}
{% macro _sw_sketch_merge_two(merge, a, b) -%}
    {%- set merged = 'hll_union' if merge == 'hll_union_agg' else merge.replace('kll_merge_agg_', 'kll_sketch_merge_') -%}
    case when {{ a }} is null then {{ b }} when {{ b }} is null then {{ a }} else {{ merged }}({{ a }}, {{ b }}) end
{%- endmacro %}


{#- The final value of a sketch aggregate from the window's sketch. A KLL sketch without a
    value (only NULLs) gives NULL, where Spark's kll_sketch_get_quantile fails the query. -#}
{% macro _sw_sketch_final(agg, sketch) -%}
    {%- if agg.kind == 'hll' -%}
        hll_sketch_estimate({{ sketch }})
    {%- else -%}
        case when kll_sketch_get_n_{{ agg.type }}({{ sketch }}) > 0 then kll_sketch_get_quantile_{{ agg.type }}({{ sketch }}, {{ agg.rank }}) end
    {%- endif -%}
{%- endmacro %}
