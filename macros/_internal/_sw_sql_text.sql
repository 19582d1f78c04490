{#- Reads SQL text once, character by character, for the macros that check or split SQL given
    as an argument: _sw_require_expression, _sw_split_call and _sw_ddl_fields.

    What the text holds outside literals and comments is structure; what is inside them is data:
      quotes    the characters that open a string literal or a quoted name and close it again
                ('...' and "...", in which a backslash escapes the next character, and `...`,
                in which none does; a doubled quote closes the literal and opens another)
      brackets  pairs of an opening and a closing character ('()'; '()<>' for DDL types); any
                closing one closes any opening one
      comments  true when -- (up to a line break) and /* (up to */) open comments
    Depth counts the brackets open; a closing bracket with none open makes it -1, so nothing
    after it is at depth 0 again until a bracket opens.

    Returns a dict:
      groups    the brackets opened at depth 0, in text order, each {'open': index, 'close':
                index of the bracket that brings the depth back to 0, none when the text ends
                first}
      commas    the indexes of the commas at depth 0
      stops     what ends an expression early, in text order, each {'at': index, 'what': ')'
                (any closing bracket with none open), ';' or '*/' (outside a comment; 'at' is
                the index of its *)}
      depth     the depth at the end
      quote     the quote still open at the end, none when every one is closed
      comment   '--' or '/*' when the text ends inside that comment, none otherwise -#}
{% macro _sw_scan_sql(text, quotes='\'"`', brackets='()', comments=true) %}
    {%- set opening, closing = brackets[0::2], brackets[1::2] -%}
    {%- set scan = {'groups': [], 'commas': [], 'stops': []} -%}
    {#- previous: the character before, when it can start a pair (-- /* */) with this one -#}
    {%- set state = namespace(quote=none, comment=none, escaped=false, depth=0, previous='') -%}
    {%- for char in text -%}
        {%- set pair = state.previous ~ char -%}
        {%- set state.previous = char -%}
        {%- if state.comment == '--' -%}
            {%- if char == '\n' -%}
                {%- set state.comment = none -%}
            {%- endif -%}
        {%- elif state.comment == '/*' -%}
            {%- if pair == '*/' -%}
                {%- set state.comment = none -%}
                {%- set state.previous = '' -%}
            {%- endif -%}
        {%- elif state.quote is not none -%}
            {%- if state.escaped -%}
                {%- set state.escaped = false -%}
            {%- elif char == '\\' and state.quote != '`' -%}
                {%- set state.escaped = true -%}
            {%- elif char == state.quote -%}
                {%- set state.quote = none -%}
                {%- set state.previous = '' -%}
            {%- endif -%}
        {%- elif comments and pair in ['--', '/*'] -%}
            {%- set state.comment = pair -%}
            {%- set state.previous = '' -%}
        {%- elif comments and pair == '*/' -%}
            {%- do scan.stops.append({'at': loop.index0 - 1, 'what': '*/'}) -%}
        {%- elif char in quotes -%}
            {%- set state.quote = char -%}
        {%- elif char in opening -%}
            {%- if state.depth == 0 -%}
                {%- do scan.groups.append({'open': loop.index0, 'close': none}) -%}
            {%- endif -%}
            {%- set state.depth = state.depth + 1 -%}
        {%- elif char in closing -%}
            {%- set state.depth = state.depth - 1 -%}
            {%- if state.depth < 0 -%}
                {%- do scan.stops.append({'at': loop.index0, 'what': ')'}) -%}
            {%- elif state.depth == 0 -%}
                {%- do scan.groups[-1].update({'close': loop.index0}) -%}
            {%- endif -%}
        {%- elif char == ',' and state.depth == 0 -%}
            {%- do scan.commas.append(loop.index0) -%}
        {%- elif char == ';' -%}
            {%- do scan.stops.append({'at': loop.index0, 'what': ';'}) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- do scan.update({'depth': state.depth, 'quote': state.quote, 'comment': state.comment}) -%}
    {{ return(scan) }}
{% endmacro %}


{#- The parts of `text` between the commas at `commas` (indexes, in order, as _sw_scan_sql
    returns them), each as written: 'a, b' split at [1] is ['a', ' b']. -#}
{% macro _sw_split_at_commas(text, commas) %}
    {%- set bounds = [-1] + commas + [text | length] -%}
    {%- set parts = [] -%}
    {%- for end in bounds[1:] -%}
        {%- do parts.append(text[bounds[loop.index0] + 1:end]) -%}
    {%- endfor -%}
    {{ return(parts) }}
{% endmacro %}
