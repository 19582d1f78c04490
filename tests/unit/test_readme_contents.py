"""Fast checks of README.md as a reference: its Contents list every `##` and `###` heading, in
order, each with the anchor GitHub gives it, and every link to `#an-anchor` in the README leads to
a heading."""

from __future__ import annotations

import re

import pytest

from dev.project import PROJECT_DIR

pytestmark = pytest.mark.fast

README = (PROJECT_DIR / "README.md").read_text()


def headings(text: str) -> list[tuple[int, str]]:
    """(level, title) of each `#`-heading outside fenced code blocks."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"(#{1,6}) (.+)$", line)):
            found.append((len(match.group(1)), match.group(2).strip()))
    return found


def anchors(titles: list[str]) -> list[str]:
    """GitHub's anchors: lower case, punctuation other than `-` and `_` dropped, spaces to `-`,
    and `-1`, `-2`, ... after a repeated one."""
    seen: dict[str, int] = {}
    result = []
    for title in titles:
        anchor = re.sub(r"[^\w\- ]", "", title.lower()).replace(" ", "-")
        count = seen.get(anchor, 0)
        seen[anchor] = count + 1
        result.append(anchor if count == 0 else f"{anchor}-{count}")
    return result


def contents_block(text: str) -> list[str]:
    section = text[text.index("## Contents\n") + len("## Contents\n") :]
    return [line for line in section[: section.index("\n## ")].splitlines() if line.strip()]


def test_the_contents_list_every_section_in_order():
    found = headings(README)
    expected = [
        ("  " if level == 3 else "") + f"- [{title.replace('`', '')}](#{anchor})"
        for (level, title), anchor in zip(found, anchors([title for _, title in found]))
        if level in (2, 3) and title != "Contents"
    ]
    assert contents_block(README) == expected


def test_every_link_to_an_anchor_leads_to_a_heading():
    known = set(anchors([title for _, title in headings(README)]))
    links = re.findall(r"\]\(#([^)]+)\)", README)
    assert links, "the README links to its own sections"
    assert sorted({link for link in links if link not in known}) == []
