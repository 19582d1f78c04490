"""Fast tests of dev/mutate_properties.py's mutants: where they are made and what one changes."""

from __future__ import annotations

import pytest

from dev.mutate_properties import OPERATORS, mutate, sites

pytestmark = pytest.mark.fast

TEXT = """{#- a comment with a <= b
   and x - 1 -#}
{% macro m(a, b) -%}
    {%- if a > 0 %}
    select a <= b, x - 1 -- not here: a < b
    from t where c is null and d <> e
    {%- endif %}
{%- endmacro %}"""


def changes(text: str) -> list[str]:
    return [mutate(text, site)[1] for site in sites(text)]


def test_sites_skip_jinja_and_sql_comments():
    lines = {number for number, _, _ in sites(TEXT)}
    assert lines == {3, 4, 5}  # the {% if %} line, the select and the from; not 0, 1 or the comment's part of 4


def test_a_mutant_changes_exactly_one_site():
    for site in sites(TEXT):
        mutated, _ = mutate(TEXT, site)
        before, after = TEXT.split("\n"), mutated.split("\n")
        assert [number for number, (a, b) in enumerate(zip(before, after)) if a != b] == [site[0]]
        pattern, replacement = OPERATORS[site[2]]
        assert after[site[0]][site[1] :].startswith(replacement)


def test_mutants_are_the_operators_changes_and_leave_not_equal_alone():
    found = changes(TEXT)
    assert "{%- if a > 0 %}  =>  {%- if a >= 0 %}" in found
    assert "{%- if a > 0 %}  =>  {%- if a > 1 %}" in found
    assert "select a <= b, x - 1 -- not here: a < b  =>  select a < b, x - 1 -- not here: a < b" in found
    assert "select a <= b, x - 1 -- not here: a < b  =>  select a <= b, x + 1 -- not here: a < b" in found
    assert "from t where c is null and d <> e  =>  from t where c is not null and d <> e" in found
    assert "from t where c is null and d <> e  =>  from t where c is null or d <> e" in found
    # `<>` is no `<` and no `>`; `-%}` and `->` are not comparisons
    assert not any("<=>" in change or "< =" in change or "<>=" in change for change in found)
    assert len(found) == 7, found


def test_a_site_that_does_not_match_is_refused():
    with pytest.raises(ValueError, match="no"):
        mutate("select 1", (0, 0, 0))
