"""The Markdown view's pure functions: render, parse, plan_reconcile, rebase_plan."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC

import pytest

from custom_components.assist_memory.engine import CATEGORIES, Memory
from custom_components.assist_memory.engine.documents.markdown import (
    CATEGORY_TITLES,
    EMPTY_HINT,
    ReconcilePlan,
    header_category,
    parse_markdown,
    plan_reconcile,
    rebase_plan,
    render_markdown,
    rendered_order,
)


def memory(memory_id: str, content: str, category: str = "fact", n: int = 0) -> Memory:
    """A memory created at second `n` (rendered order follows `n`)."""
    stamp = f"2025-01-01T00:{n // 60:02d}:{n % 60:02d}+00:00"
    return Memory(
        id=memory_id,
        content=content,
        category=category,
        created_at=stamp,
        updated_at=stamp,
    )


def sample() -> list[Memory]:
    return [
        memory("tea", "Likes green tea", "preference", 1),
        memory("key", "The spare key is under the blue flowerpot", "fact", 2),
        memory("wifi", "The guest wifi password is on the fridge", "fact", 3),
        memory("bins", "Bins go out on Tuesday evening", "routine", 4),
        memory("anna", "Anna is the neighbour's daughter", "person", 5),
        memory("coffee", "Likes black coffee", "preference", 6),
    ]


def plan_for(current: Sequence[Memory], text: str) -> ReconcilePlan:
    return plan_reconcile(current, parse_markdown(text), UTC)


def edited(current: Sequence[Memory], old: str, new: str) -> ReconcilePlan:
    """The plan for the rendered file with one piece of text replaced."""
    text = render_markdown(current, UTC)
    assert old in text
    return plan_for(current, text.replace(old, new, 1))


# -- render ------------------------------------------------------------------------


def test_render_groups_by_category_in_order_and_oldest_first() -> None:
    assert render_markdown(sample(), UTC) == (
        "# Memory\n"
        "\n"
        "## Preferences\n"
        "\n"
        "- Likes green tea\n"
        "- Likes black coffee\n"
        "\n"
        "## Facts\n"
        "\n"
        "- The spare key is under the blue flowerpot\n"
        "- The guest wifi password is on the fridge\n"
        "\n"
        "## People\n"
        "\n"
        "- Anna is the neighbour's daughter\n"
        "\n"
        "## Routines\n"
        "\n"
        "- Bins go out on Tuesday evening\n"
    )


def test_render_sorts_by_creation_whatever_the_input_order() -> None:
    memories = sample()
    assert render_markdown(reversed(memories), UTC) == render_markdown(memories, UTC)
    assert [m.id for m in rendered_order(memories)] == [
        "tea",
        "coffee",
        "key",
        "wifi",
        "anna",
        "bins",
    ]


def test_render_every_category_has_a_title() -> None:
    memories = [memory(c, f"about {c}", c, i) for i, c in enumerate(CATEGORIES)]
    headers = [
        line
        for line in render_markdown(memories, UTC).splitlines()
        if line[:3] == "## "
    ]
    assert headers == [f"## {CATEGORY_TITLES[c]}" for c in CATEGORIES]
    assert [header_category(h[3:]) for h in headers] == list(CATEGORIES)


def test_render_puts_content_on_one_line() -> None:
    text = render_markdown(
        [memory("a", "First line\n\n  second\tline  \r\n## not a header")], UTC
    )
    assert text.splitlines()[-1] == "- First line second line ## not a header"


def test_render_empty_store_shows_title_and_hint() -> None:
    text = render_markdown([], UTC)
    assert text == f"# Memory\n\n{EMPTY_HINT}\n"
    assert EMPTY_HINT.startswith("_")
    assert EMPTY_HINT.endswith("_")
    assert parse_markdown(text) == []


# -- parse -------------------------------------------------------------------------


def test_parse_reads_headers_and_bullets() -> None:
    text = """# Memory

## Preferences

- Likes tea
* Likes coffee
+ Likes juice

## facts:

-   The key is under the pot
"""
    assert parse_markdown(text) == [
        ("preference", "Likes tea"),
        ("preference", "Likes coffee"),
        ("preference", "Likes juice"),
        ("fact", "The key is under the pot"),
    ]


@pytest.mark.parametrize(
    ("title", "category"),
    [
        ("Preference", "preference"),
        ("PREFERENCES", "preference"),
        ("偏好", "preference"),
        ("喜好", "preference"),
        ("Fact", "fact"),
        ("facts", "fact"),
        ("事实", "fact"),
        ("事實", "fact"),
        ("Patterns", "pattern"),
        ("习惯", "pattern"),
        ("習慣", "pattern"),
        ("模式", "pattern"),
        ("Events", "event"),
        ("事件", "event"),
        ("Person", "person"),
        ("persons", "person"),
        ("People", "person"),
        ("人物", "person"),
        ("Routines", "routine"),
        ("日常", "routine"),
        ("例行", "routine"),
        ("Notes", "note"),
        ("笔记", "note"),
        ("筆記", "note"),
        ("备注", "note"),
        ("備註", "note"),
        ("  Facts：", "fact"),
        ("Ｆａｃｔｓ", "fact"),
    ],
)
def test_header_names(title: str, category: str) -> None:
    assert header_category(title) == category
    assert parse_markdown(f"## {title}\n- x\n") == [(category, "x")]


@pytest.mark.parametrize("header", ["# Facts", "### facts ###", "###### Facts #"])
def test_any_header_level_and_closing_hashes(header: str) -> None:
    assert parse_markdown(f"{header}\n- x\n") == [("fact", "x")]


def test_bullets_before_any_header_or_under_unknown_headers_are_notes() -> None:
    text = """- before any header
## Facts
- a fact
## Shopping list
- eggs
##
- under an empty header
## C#
- under a header that only looks closed
"""
    assert parse_markdown(text) == [
        ("note", "before any header"),
        ("fact", "a fact"),
        ("note", "eggs"),
        ("note", "under an empty header"),
        ("note", "under a header that only looks closed"),
    ]


def test_continuation_lines_are_joined() -> None:
    text = (
        "## Facts\r\n"
        "- The spare key is\r\n"
        "  under the blue\r\n"
        "\tflowerpot\r\n"
        "\r\n"
        "    by the door\r\n"
        "-\r\n"
        "   text on the next line\r\n"
        "- next\r\n"
    )
    assert parse_markdown(text) == [
        ("fact", "The spare key is under the blue flowerpot by the door"),
        ("fact", "text on the next line"),
        ("fact", "next"),
    ]


def test_nested_bullets_are_bullets_of_their_own() -> None:
    assert parse_markdown("## Facts\n- coffee\n  - black\n\t* strong\n") == [
        ("fact", "coffee"),
        ("fact", "black"),
        ("fact", "strong"),
    ]


def test_other_lines_are_ignored_and_end_a_bullet() -> None:
    text = """## Facts
Some paragraph written by hand.
- a bullet
a line at the margin ends it
  so this indented line belongs to nothing
1. numbered lists are not memories
#hashtag is not a header
---
<!-- a comment -->
- -dash inside
- **bold** stays as written
"""
    assert parse_markdown(text) == [
        ("fact", "a bullet"),
        ("fact", "-dash inside"),
        ("fact", "**bold** stays as written"),
    ]


def test_blank_bullets_are_ignored() -> None:
    assert parse_markdown("## Facts\n-\n*   \n+\t\n- real\n-") == [("fact", "real")]


def test_parse_empty_text() -> None:
    assert parse_markdown("") == []
    assert parse_markdown("\n\n   \n") == []


# -- round trip ----------------------------------------------------------------------


def tricky() -> list[Memory]:
    contents = [
        ("preference", "我喜欢用 Python 写代码"),
        ("fact", "- starts with a dash"),
        ("fact", "# looks like a header"),
        ("fact", "*"),
        ("fact", "two\nlines"),
        ("fact", "double  spaced   words"),
        ("note", "## also a header inside"),
        ("event", "   padded   "),
        ("person", "Anna"),
        ("person", "Anna"),
        ("routine", "C# homework on Mondays"),
        ("pattern", "1. not a numbered item"),
    ]
    return [memory(f"m{i}", text, cat, i) for i, (cat, text) in enumerate(contents)]


@pytest.mark.parametrize("memories", [[], sample(), tricky()])
def test_round_trip_plans_no_change(memories: list[Memory]) -> None:
    text = render_markdown(memories, UTC)
    parsed = parse_markdown(text)
    assert len(parsed) == len(memories)
    plan = plan_reconcile(memories, parsed, UTC)
    assert plan == ReconcilePlan()
    assert not plan
    # Rendering is stable: render(parse(render)) would give the same file.
    assert render_markdown(memories, UTC) == text


def test_whitespace_and_layout_changes_plan_nothing() -> None:
    memories = sample()
    text = """Facts first, by hand:

## FACTS
*   The spare key   is under the blue flowerpot
- The guest wifi password
  is on the fridge
## 偏好
+ Likes black coffee
- Likes green tea
## people
- Anna is the neighbour's daughter
## Routine
- Bins go out on Tuesday evening
"""
    assert plan_for(memories, text) == ReconcilePlan()


# -- plan: single changes ------------------------------------------------------------


def test_new_bullet_is_an_add() -> None:
    plan = edited(
        sample(), "- Likes black coffee\n", "- Likes black coffee\n- Oat milk\n"
    )
    assert plan == ReconcilePlan(adds=[("preference", "Oat milk")])
    assert plan


def test_new_section_is_added() -> None:
    memories = sample()
    text = render_markdown(memories, UTC) + "\n## 事件\n\n- Moved in on 2024-05-01\n"
    assert plan_for(memories, text) == ReconcilePlan(
        adds=[("event", "Moved in on 2024-05-01")]
    )


def test_removed_bullet_is_a_delete() -> None:
    plan = edited(sample(), "- The guest wifi password is on the fridge\n", "")
    assert plan == ReconcilePlan(deletes=["wifi"])


def test_removed_section_deletes_its_memories() -> None:
    plan = edited(
        sample(),
        "## Preferences\n\n- Likes green tea\n- Likes black coffee\n\n",
        "",
    )
    assert plan == ReconcilePlan(deletes=["tea", "coffee"])


def test_everything_removed() -> None:
    assert plan_for(sample(), "# Memory\n") == ReconcilePlan(
        deletes=["tea", "coffee", "key", "wifi", "anna", "bins"]
    )


def test_everything_new() -> None:
    assert plan_for([], "## Facts\n- a\n- b\n## Notes\n- c\n") == ReconcilePlan(
        adds=[("fact", "a"), ("fact", "b"), ("note", "c")]
    )


def test_edited_bullet_updates_the_same_memory() -> None:
    plan = edited(sample(), "blue flowerpot", "red flowerpot")
    assert plan == ReconcilePlan(
        updates=[("key", "The spare key is under the red flowerpot", None)]
    )


def test_bullet_moved_to_another_header_changes_only_the_category() -> None:
    memories = sample()
    text = (
        render_markdown(memories, UTC).replace("- Likes green tea\n", "")
        + "\n## Notes\n\n- Likes   green tea\n"
    )
    assert plan_for(memories, text) == ReconcilePlan(updates=[("tea", None, "note")])


def test_moved_and_edited_is_a_delete_and_an_add() -> None:
    memories = sample()
    text = (
        render_markdown(memories, UTC).replace("- Likes green tea\n", "")
        + "\n## Notes\n\n- Likes jasmine tea\n"
    )
    assert plan_for(memories, text) == ReconcilePlan(
        adds=[("note", "Likes jasmine tea")], deletes=["tea"]
    )


def test_reordered_lines_change_nothing() -> None:
    memories = sample()
    text = render_markdown(memories, UTC).replace(
        "- Likes green tea\n- Likes black coffee\n",
        "- Likes black coffee\n- Likes green tea\n",
    )
    assert plan_for(memories, text) == ReconcilePlan()


def test_unknown_header_makes_notes() -> None:
    memories = sample()
    text = render_markdown(memories, UTC).replace("## Facts", "## Household stuff")
    assert plan_for(memories, text) == ReconcilePlan(
        updates=[("key", None, "note"), ("wifi", None, "note")]
    )


def test_chinese_headers_match_the_english_ones() -> None:
    memories = sample()
    text = render_markdown(memories, UTC)
    for english, chinese in (
        ("Preferences", "偏好"),
        ("Facts", "事實"),
        ("People", "人物"),
        ("Routines", "例行"),
    ):
        text = text.replace(f"## {english}", f"## {chinese}")
    assert plan_for(memories, text) == ReconcilePlan()


def test_continuation_line_edits_a_memory() -> None:
    plan = edited(
        sample(), "- Likes black coffee\n", "- Likes black coffee\n  without sugar\n"
    )
    assert plan == ReconcilePlan(
        updates=[("coffee", "Likes black coffee without sugar", None)]
    )


# -- plan: several changes -------------------------------------------------------------


def facts(*contents: str) -> list[Memory]:
    return [memory(f"f{i}", text, "fact", i) for i, text in enumerate(contents)]


def facts_file(*lines: str) -> str:
    return "## Facts\n" + "".join(f"- {line}\n" for line in lines)


def test_lines_edited_in_place_pair_in_order() -> None:
    current = facts("Alpha one", "Beta two", "Gamma three", "Delta four")
    plan = plan_for(current, facts_file("Alpha one", "BETA", "GAMMA", "Delta four"))
    assert plan == ReconcilePlan(updates=[("f1", "BETA", None), ("f2", "GAMMA", None)])


def test_kept_lines_anchor_the_alignment() -> None:
    current = facts("Alpha", "Beta", "Gamma", "Delta", "Epsilon")
    # beta removed, delta edited: the kept gamma separates the two changes.
    plan = plan_for(current, facts_file("Alpha", "Gamma", "Delta!", "Epsilon"))
    assert plan == ReconcilePlan(updates=[("f3", "Delta!", None)], deletes=["f1"])


def test_uneven_block_pairs_the_most_similar_lines() -> None:
    current = facts(
        "The dog is called Rex",
        "The cat is called Mimi and sleeps on the sofa",
    )
    # The first line is removed and the second edited, in the same block.
    plan = plan_for(current, facts_file("The cat is called Mimi and sleeps on the bed"))
    assert plan == ReconcilePlan(
        updates=[("f1", "The cat is called Mimi and sleeps on the bed", None)],
        deletes=["f0"],
    )


def test_uneven_block_with_more_new_lines() -> None:
    current = facts("Dinner is at seven on weekdays")
    plan = plan_for(
        current,
        facts_file("Buy more rice", "Dinner is at eight on weekdays", "Call mum"),
    )
    assert plan == ReconcilePlan(
        adds=[("fact", "Buy more rice"), ("fact", "Call mum")],
        updates=[("f0", "Dinner is at eight on weekdays", None)],
    )


def test_uneven_block_of_unrelated_lines_pairs_the_first_ones() -> None:
    current = facts("aaa", "bbb", "ccc")
    plan = plan_for(current, facts_file("xyz"))
    assert plan == ReconcilePlan(updates=[("f0", "xyz", None)], deletes=["f1", "f2"])


def test_very_large_block_pairs_in_order() -> None:
    current = facts(*(f"old line {i}" for i in range(60)))
    new = [f"new line number {i}" for i in range(50)]
    plan = plan_for(current, facts_file(*new))
    assert plan.updates == [(f"f{i}", new[i], None) for i in range(50)]
    assert plan.deletes == [f"f{i}" for i in range(50, 60)]
    assert plan.adds == []


def test_replace_across_categories_is_per_category() -> None:
    current = [
        memory("p", "likes tea", "preference", 1),
        memory("f", "key under pot", "fact", 2),
    ]
    text = "## Preferences\n- likes coffee\n## Facts\n- key under the mat\n"
    assert plan_for(current, text) == ReconcilePlan(
        updates=[("p", "likes coffee", None), ("f", "key under the mat", None)]
    )


# -- plan: duplicates ----------------------------------------------------------------


def test_identical_bullets_keep_distinct_memories() -> None:
    current = facts("Same", "Same")
    assert plan_for(current, facts_file("Same", "Same")) == ReconcilePlan()


def test_extra_identical_bullet_is_an_add() -> None:
    current = facts("Same", "Other")
    plan = plan_for(current, facts_file("Same", "Other", "Same"))
    assert plan == ReconcilePlan(adds=[("fact", "Same")])


def test_one_of_two_identical_memories_removed() -> None:
    current = facts("Same", "Same")
    assert plan_for(current, facts_file("Same")) == ReconcilePlan(deletes=["f1"])


def test_identical_memories_prefer_their_own_header() -> None:
    current = [
        memory("f", "Same", "fact", 1),
        memory("n", "Same", "note", 2),
    ]
    text = "## Notes\n- Same\n## Facts\n- Same\n"
    assert plan_for(current, text) == ReconcilePlan()
    # Both under one header: the one from elsewhere moves.
    assert plan_for(current, "## Facts\n- Same\n- Same\n") == ReconcilePlan(
        updates=[("n", None, "fact")]
    )


def test_duplicate_turned_into_an_edit_of_another_line() -> None:
    current = facts("Same", "Different")
    plan = plan_for(current, facts_file("Same", "Same"))
    assert plan == ReconcilePlan(updates=[("f1", "Same", None)])


# -- rebase ----------------------------------------------------------------------------


def test_rebase_keeps_changes_made_since_the_file_was_written() -> None:
    base = facts("Alpha", "Beta", "Gamma")
    newer = memory("new", "Added meanwhile", "fact", 10)
    current = {m.id: m for m in base if m.id != "f2"} | {newer.id: newer}
    # The editor's copy lacks `newer`; it removes beta and adds a line.
    plan = plan_reconcile(
        base, parse_markdown(facts_file("Alpha", "Gamma", "Delta")), UTC
    )
    assert plan == ReconcilePlan(adds=[("fact", "Delta")], deletes=["f1"])

    rebased = rebase_plan(plan, base, current, UTC)

    assert rebased == plan  # nothing about `newer`: it stays


def test_rebase_drops_what_another_program_already_did() -> None:
    base = facts("Alpha", "Beta", "Gamma")
    added = memory("x", "Added elsewhere", "fact", 10)
    current = {"f0": base[0].with_changes(content="ALPHA"), "f1": base[1], "x": added}
    # MEMORY.md as the other program wrote it: alpha edited, gamma gone, x added.
    other = facts_file("ALPHA", "Beta", "Added elsewhere", "Added elsewhere")
    plan = plan_reconcile(base, parse_markdown(other), UTC)

    rebased = rebase_plan(plan, base, current, UTC)

    assert rebased == ReconcilePlan(
        adds=[("fact", "Added elsewhere")],  # the second copy is new
        updates=[("f0", "ALPHA", None)],  # already so: applying it changes nothing
        deletes=[],
    )


def test_rebase_skips_deletes_of_memories_gone_since() -> None:
    base = facts("alpha", "beta")
    plan = ReconcilePlan(deletes=["f0", "f1"])
    assert rebase_plan(plan, base, {"f1": base[1]}, UTC) == ReconcilePlan(
        deletes=["f1"]
    )


def test_rebase_brings_back_a_memory_edited_in_the_file_but_gone_since() -> None:
    base = [memory("f", "alpha", "fact", 1), memory("n", "beta", "note", 2)]
    plan = ReconcilePlan(
        updates=[("f", "alpha!", None), ("n", None, "event"), ("unknown", "x", None)]
    )
    assert rebase_plan(plan, base, {}, UTC) == ReconcilePlan(
        adds=[("fact", "alpha!"), ("event", "beta")]
    )


# -- scale -------------------------------------------------------------------------------


def test_hundred_thousand_memories() -> None:
    memories = [
        memory(
            f"m{i}", f"memory {i} about topic {i * 7919 % 100003}", CATEGORIES[i % 7]
        )
        for i in range(100_000)
    ]
    text = render_markdown(memories, UTC)
    assert text.count("\n- ") == 100_000
    lines = text.splitlines()
    lines[5] += " edited"
    del lines[9]
    plan = plan_for(memories, "\n".join(lines))
    assert len(plan.updates) == 1
    assert len(plan.deletes) == 1
    assert plan.adds == []
