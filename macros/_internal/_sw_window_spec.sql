{#- Checks the window dict and returns it with sizes in microseconds:
    {type, size_us, pane_us, panes_per_window, offset_us (reduced), gap_us (none for a gap
    expression), and the original strings}. With a list as `errors`, problems are appended there
    and the result is none. With any_hop, a hop may have a size that is not a whole multiple of
    its slide, and gaps with 'allow_gaps': true (`aligned` is then false and panes_per_window
    none); otherwise its size must be a whole multiple of its slide. -#}
{% macro _sw_window_spec(window, macro_name, errors=none, any_hop=false) %}
    {%- set required = {
        'tumble': ['size'],
        'hop': ['slide', 'size'],
        'cumulate': ['step', 'size'],
        'session': ['gap'],
    } -%}
    {%- set optional = {'tumble': ['offset'], 'hop': ['offset'] + (['allow_gaps'] if any_hop else []), 'cumulate': ['offset'], 'session': []} -%}
    {%- set examples -%}
        {'type': 'tumble', 'size': '1 minute'}, {'type': 'hop', 'slide': '1 minute', 'size': '1 hour'}, {'type': 'cumulate', 'step': '1 minute', 'size': '1 hour'} (each with an optional 'offset') or {'type': 'session', 'gap': '10 minutes'}
    {%- endset -%}
    {%- if window is not mapping or window.get('type') not in required -%}
        {{ return(spark_windows._sw_refuse(
            macro_name ~ ": window (" ~ window ~ ") must be a dict whose 'type' is tumble, hop, cumulate or session, such as " ~ examples, errors)) }}
    {%- endif -%}
    {%- set type = window['type'] -%}
    {%- for key in required[type] -%}
        {%- if key not in window -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": window (" ~ window ~ ") is missing '" ~ key ~ "'; a " ~ type ~ " window needs " ~ required[type] | join(' and ') ~ ", such as " ~ examples, errors)) }}
        {%- endif -%}
    {%- endfor -%}
    {%- for key in window -%}
        {%- if key != 'type' and key not in required[type] and key not in optional[type] -%}
            {{ return(spark_windows._sw_refuse(
                macro_name ~ ": window (" ~ window ~ ") has the unknown key '" ~ key ~ "'; a " ~ type ~ " window takes "
                ~ (required[type] + optional[type]) | join(', '), errors)) }}
        {%- endif -%}
    {%- endfor -%}
    {%- set where = macro_name ~ " (" ~ type ~ " window)" -%}
    {%- if type == 'session' -%}
        {#- gap_us is none for a gap expression (a per-row gap), which session() evaluates -#}
        {%- set known = (errors or []) | length -%}
        {%- set gap_us = spark_windows._sw_session_gap_us(window['gap'], where, errors) -%}
        {{ return(none if (errors or []) | length > known else {'type': type, 'gap': window['gap'], 'gap_us': gap_us}) }}
    {%- endif -%}
    {%- set size_us = spark_windows._sw_duration_us(window['size'], where, 'size', errors=errors) -%}
    {%- set pane_key = {'tumble': 'size', 'hop': 'slide', 'cumulate': 'step'}[type] -%}
    {%- set pane_us = spark_windows._sw_duration_us(window[pane_key], where, pane_key, errors=errors) -%}
    {%- if size_us is none or pane_us is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- if type == 'hop' and any_hop -%}
        {%- if spark_windows._sw_require_hop_slide(window['size'], size_us, window['slide'], pane_us, window.get('allow_gaps', false), where, errors) is none -%}
            {{ return(none) }}
        {%- endif -%}
    {%- elif spark_windows._sw_require_multiple(window['size'], size_us, pane_key, window[pane_key], pane_us, where, errors) is none -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set aligned = size_us % pane_us == 0 -%}
    {%- set alignment_us = size_us if type in ['tumble', 'cumulate'] else pane_us -%}
    {%- set offset_us = spark_windows._sw_offset_us(window.get('offset'), alignment_us, where, errors) -%}
    {%- if offset_us is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return({
        'type': type,
        'size': window['size'],
        'slide': window.get('slide', window.get('step', window['size'])),
        'offset': window.get('offset'),
        'size_us': size_us,
        'pane_us': pane_us,
        'panes_per_window': size_us // pane_us if aligned else none,
        'aligned': aligned,
        'allow_gaps': window.get('allow_gaps', false),
        'offset_us': offset_us,
    }) }}
{% endmacro %}
