"""Fast tests: _sw_scan_sql, the one reader of SQL text given as an argument
(macros/_internal/_sw_sql_text.sql), on texts whose commas, brackets, quotes and comments are
counted by hand. _sw_require_expression, _sw_split_call and _sw_ddl_fields read what it returns;
their messages are tested with the macros that use them."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.fast

DDL = {"quotes": "`", "brackets": "()<>", "comments": False}


def scanned(commas=(), groups=(), stops=(), depth=0, quote=None, comment=None) -> dict:
    """What _sw_scan_sql returns: groups as (open, close), stops as (at, what)."""
    return {
        "commas": list(commas),
        "groups": [{"open": open_at, "close": close_at} for open_at, close_at in groups],
        "stops": [{"at": at, "what": what} for at, what in stops],
        "depth": depth,
        "quote": quote,
        "comment": comment,
    }


CASES = [
    # the commas at 1, 8 and 16 are at depth 0; the one in the literal (5) and the one in the
    # parentheses (12) are not
    ("a, 'b,c', (d, e), f", {}, scanned(commas=[1, 8, 16], groups=[(10, 15)])),
    # a backslash escapes the quote at 4 and the one at 14; in backticks it escapes nothing, so
    # the backtick at 23 closes the name and the one at 27 opens another
    ("'it\\'s (', \"a\\\"b,\", `x\\`, y`", {}, scanned(commas=[9, 18, 24], quote="`")),
    # a doubled quote closes the literal and opens the next: the comma at 7 is outside both
    ("'it''s', x", {}, scanned(commas=[7])),
    # the group at 1 closes at 11; the parenthesis at 13 closes none and the depth is -1 until
    # the one at 17, which opens no group
    ("f(g(x), (y)) ) ; (z", {}, scanned(groups=[(1, 11)], stops=[(13, ")"), (15, ";")])),
    # a -- comment ends at the line break (7); /* ... */ spans 12 to 18; */ at 24 closes none
    ("a -- ,(\n, b /* ) */ , c */", {}, scanned(commas=[8, 20], stops=[(24, "*/")])),
    # without comments the same characters are plain text
    ("a -- ,(\n, b /* ) */ , c */", {"comments": False}, scanned(commas=[5, 20], groups=[(6, 15)])),
    # the / closing a comment starts nothing: the * after it is a plain character
    ("/*/ x */*", {}, scanned()),
    ("x -- y", {}, scanned(comment="--")),
    ("x /* y", {}, scanned(comment="/*")),
    ("(x, (y)", {}, scanned(groups=[(0, None)], depth=1)),
    # DDL: <...> nests like (...); only backticks quote, so the comma at 44 splits a literal
    (
        "a map<string,int>, `b,c` decimal(10,2), d 'e,f'",
        DDL,
        scanned(commas=[17, 38, 44], groups=[(5, 16), (32, 37)]),
    ),
    # the > at 5 closes none: the comma at 6 is at depth -1, and the < at 10 brings it back to 0
    ("a int>, b <", DDL, scanned(stops=[(5, ")")])),
]


@pytest.mark.parametrize("text, options, expected", CASES, ids=repr)
def test_scan_finds_the_commas_groups_and_stops_outside_literals_and_comments(renderer, text, options, expected):
    assert renderer.call("_sw_scan_sql", text, **options) == expected


def test_empty_text_has_nothing(renderer):
    assert renderer.call("_sw_scan_sql", "") == scanned()


@pytest.mark.parametrize(
    "text, commas, parts",
    [
        ("a, b", [1], ["a", " b"]),
        (
            "a map<string,int>, `b,c` decimal(10,2), d 'e,f'",
            [17, 38, 44],
            ["a map<string,int>", " `b,c` decimal(10,2)", " d 'e", "f'"],
        ),
        ("a", [], ["a"]),
        (",", [0], ["", ""]),
    ],
)
def test_split_at_commas_keeps_each_part_as_written(renderer, text, commas, parts):
    assert renderer.call("_sw_split_at_commas", text, commas) == parts
