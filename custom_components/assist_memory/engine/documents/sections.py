"""MEMORY.md's sections: whose memories (the household's, or a person's), which category.

A section is named by one string, its key (`storage.models.section_key`): the
category for the household's memories ("fact"), the category and the person's scope
for a person's ("fact@<scope>"). Everything that compares bullets ((key, text) pairs:
the written base, the three-way merge, the reconcile plan) works on keys as it did on
categories, and a bullet moved to another person's section moves the memory to that
person.

The household's sections come first, under `# Memory`; then each person's (in the
order of their scopes) under a header naming the scope in a comment, which reading
takes whatever the header's text says (the panel writes the person's name there):

    # Personal memories <!-- person 8f14e45fceea167a -->

    ## Preferences

    - Likes black coffee
"""

from __future__ import annotations

import re
from typing import Final

from ..storage.models import (
    CATEGORIES,
    HOUSEHOLD_SCOPE,
    Memory,
    section_key,
    split_section,
)

__all__ = [
    "header_person",
    "person_header",
    "section_key",
    "section_of",
    "section_rank",
    "split_section",
]

PERSON_TITLE: Final = "Personal memories"
_ORDER: Final = {category: index for index, category in enumerate(CATEGORIES)}
# A header that names a person: `<!-- person <scope> -->` anywhere in its text.
_PERSON: Final = re.compile(r"<!--\s*person\s+(\S+)\s*-->\s*$")


def section_of(memory: Memory) -> str:
    """The key of the section that shows `memory`."""
    return section_key(memory.category, memory.scope)


def section_rank(key: str) -> tuple[bool, str, int]:
    """Where a section comes: the household's first, then by scope, by category."""
    category, scope = split_section(key)
    person = scope != HOUSEHOLD_SCOPE
    return (person, scope if person else "", _ORDER.get(category, len(_ORDER)))


def person_header(scope: str) -> str:
    """The header over one person's sections."""
    return f"# {PERSON_TITLE} <!-- person {scope} -->"


def header_person(title: str) -> str | None:
    """The scope a header names (`<!-- person <scope> -->`), or None."""
    found = _PERSON.search(title)
    return None if found is None else found.group(1)
