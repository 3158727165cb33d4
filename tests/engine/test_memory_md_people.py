"""MEMORY.md says whose each memory is: the household's first, then a section per person.

Rendered, read back, edited by hand (in the file and through the API's text) and
reconciled: the owner survives every round trip, a line added under a person's header
is theirs, and a line moved to another section moves the memory.
"""

from __future__ import annotations

from datetime import UTC

import pytest

from custom_components.assist_memory.engine import Memory, MemoryStore
from custom_components.assist_memory.engine.documents.markdown import (
    parse_markdown,
    plan_reconcile,
    render_markdown,
)
from custom_components.assist_memory.engine.documents.mirror import MarkdownMirror
from custom_components.assist_memory.engine.documents.sections import (
    header_person,
    person_header,
)

from .conftest import markdown_body
from .test_markdown import memory as markdown_memory
from .test_mirror import edit

ANNA = "8f14e45fceea167a5a36dedd4bea2543"
TOM = "c9f0f895fb98ab9159f51fd0297e236d"


@pytest.fixture
def mirror(store: MemoryStore) -> MarkdownMirror:
    """MEMORY.md beside the store, written and watched."""
    mirror = MarkdownMirror(store, store.path.parent, UTC)
    mirror.start()
    return mirror


def memory(memory_id: str, content: str, category: str, n: int, scope: str) -> Memory:
    """A memory of `scope` created at second `n`."""
    return markdown_memory(memory_id, content, category, n).with_changes(scope=scope)


def household_and_two_people() -> list[Memory]:
    return [
        memory("colour", "my favourite colour is blue", "preference", 1, ANNA),
        memory("key", "The spare key is under the flowerpot", "fact", 2, "household"),
        memory("dentist", "My dentist is Dr. Chen", "fact", 3, TOM),
        memory("peanuts", "I am allergic to peanuts", "fact", 4, ANNA),
        memory("bins", "Bins go out on Tuesday", "routine", 5, "household"),
    ]


def test_each_persons_memories_are_under_a_header_of_their_own() -> None:
    assert render_markdown(household_and_two_people(), UTC) == (
        "# Memory\n"
        "\n## Facts\n\n- The spare key is under the flowerpot\n"
        "\n## Routines\n\n- Bins go out on Tuesday\n"
        f"\n{person_header(ANNA)}\n"
        "\n## Preferences\n\n- My favourite colour is blue\n"
        "\n## Facts\n\n- I am allergic to peanuts\n"
        f"\n{person_header(TOM)}\n"
        "\n## Facts\n\n- My dentist is Dr. Chen\n"
    )
    # Only people's memories: still under the title first.
    (dentist,) = [m for m in household_and_two_people() if m.scope == TOM]
    assert render_markdown([dentist], UTC) == (
        f"# Memory\n\n{person_header(TOM)}\n\n## Facts\n\n- My dentist is Dr. Chen\n"
    )


def test_the_file_read_back_changes_nothing() -> None:
    memories = household_and_two_people()
    assert not plan_reconcile(
        memories, parse_markdown(render_markdown(memories, UTC)), UTC
    )


def test_the_header_is_read_by_the_scope_it_names_whatever_its_text() -> None:
    assert header_person(f"Anna <!-- person {ANNA} -->") == ANNA
    assert header_person("Anna") is None
    # A person may have written text in the header: only the comment says whose.
    text = render_markdown(household_and_two_people(), UTC).replace(
        person_header(ANNA), f"# Anna (my own) <!-- person {ANNA} -->"
    )
    assert not plan_reconcile(household_and_two_people(), parse_markdown(text), UTC)


def test_a_line_added_under_a_person_is_theirs_and_a_first_level_header_ends_it() -> (
    None
):
    memories = household_and_two_people()
    text = render_markdown(memories, UTC).replace(
        "- I am allergic to peanuts\n",
        "- I am allergic to peanuts\n- Anna walks to work\n",
    )
    text += "\n# Shared\n\n- Notes for everyone\n"
    plan = plan_reconcile(memories, parse_markdown(text), UTC)
    assert plan.adds == [
        (f"fact@{ANNA}", "Anna walks to work"),
        ("note", "Notes for everyone"),
    ]
    assert not plan.updates
    assert not plan.deletes


def test_a_line_moved_to_another_section_moves_the_memory() -> None:
    memories = household_and_two_people()
    text = render_markdown(memories, UTC).replace("- My dentist is Dr. Chen\n", "")
    text = text.replace(
        "- The spare key is under the flowerpot\n",
        "- The spare key is under the flowerpot\n- My dentist is Dr. Chen\n",
    )
    plan = plan_reconcile(memories, parse_markdown(text), UTC)
    assert plan.updates == [("dentist", None, "fact")]
    assert not plan.adds
    assert not plan.deletes


def test_an_edit_of_the_file_keeps_each_memorys_owner(
    store: MemoryStore, mirror: MarkdownMirror
) -> None:
    colour = store.add("my favourite colour is blue", category="preference", scope=ANNA)
    key = store.add("The spare key is under the flowerpot")
    dentist = store.add("My dentist is Dr. Chen", scope=TOM)
    mirror.flush()

    edit(mirror.path, "colour is blue", "colour is green")
    edit(
        mirror.path,
        "- My dentist is Dr. Chen\n",
        "- My dentist is Dr. Chen\n- Tom cycles\n",
    )
    edit(mirror.path, "- The spare key is under the flowerpot\n", "")
    mirror.reconcile_file()

    changed = store.get(colour.id)
    assert changed is not None
    assert (changed.content, changed.scope) == ("My favourite colour is green", ANNA)
    assert store.get(key.id) is None
    cycles = next(m for m in store.get_all() if m.content == "Tom cycles")
    assert (cycles.scope, cycles.category) == (TOM, "fact")
    assert store.get(dentist.id) is not None
    assert markdown_body(mirror.path) == render_markdown(store.get_all(), UTC)

    # The API's text (the panel's Save) round-trips too, names in the headers or not.
    text = markdown_body(mirror.path).replace(
        person_header(TOM), f"# Tom <!-- person {TOM} -->"
    )
    assert not mirror.write_text(text).changed
    assert {m.content: m.scope for m in store.get_all()} == {
        "My favourite colour is green": ANNA,
        "My dentist is Dr. Chen": TOM,
        "Tom cycles": TOM,
    }
