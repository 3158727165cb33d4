"""The `assist-memory` command line, run in-process on real files (and once for real)."""

from __future__ import annotations

from collections.abc import Callable
import contextlib
from datetime import UTC, datetime, timedelta
import json
import os
from pathlib import Path
import subprocess
import sys
from typing import Any

import pytest

from custom_components.assist_memory.engine.host.cli import main
from custom_components.assist_memory.engine.memory.memory_engine import MemoryEngine
from custom_components.assist_memory.engine.storage.settings import StoreSettings
from custom_components.assist_memory.engine.storage.store import MemoryStore

ENV_VARS = ("MEMORY_FILE", "MEMORY_MAX_ITEMS", "MEMORY_MAX_CONTENT_LENGTH")

type Run = Callable[..., tuple[int, str, str]]


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*ENV_VARS, "SUPERVISOR_TOKEN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def run(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> Run:
    """Run the CLI on `data_dir`; returns (exit code, stdout, stderr)."""

    def invoke(*args: str, data: bool = True) -> tuple[int, str, str]:
        argv = ["--data-dir", str(data_dir), *args] if data else list(args)
        code = main(argv)
        out, err = capsys.readouterr()
        return code, out, err

    return invoke


def run_json(run: Run, *args: str) -> Any:
    code, out, err = run("--json", *args)
    assert (code, err) == (0, "")
    return json.loads(out)


def assert_one_error(result: tuple[int, str, str], code: int, text: str) -> None:
    exit_code, out, err = result
    assert exit_code == code
    assert out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("error: ")
    assert text in err


@pytest.fixture
def three(run: Run) -> list[str]:
    """Three memories, added in order; returns their ids."""
    ids = []
    for text, category in (
        ("Likes green tea in the morning", "preference"),
        ("The cat is called Miso", "fact"),
        ("Waters the plants on Sunday", "routine"),
    ):
        code, out, _ = run("add", text, "--category", category)
        assert code == 0
        ids.append(out.strip())
    return ids


# -- add / get -----------------------------------------------------------------


def test_add_prints_the_new_id_and_get_shows_it(run: Run, data_dir: Path) -> None:
    code, out, err = run(
        "add",
        "  Prefers the living room at 21 degrees ",
        "--category",
        "Preference",
        "--tags",
        "climate, Living-Room,climate",
        "--key",
        "temperature",
        "--confidence",
        "0.8",
        "--source",
        "inferred",
        "--scope",
        "user-1",
    )
    assert (code, err) == (0, "")
    memory_id = out.strip()
    assert out == f"{memory_id}\n"

    code, out, err = run("get", memory_id)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"id: {memory_id}"
    assert "content: Prefers the living room at 21 degrees" in lines
    assert "category: preference" in lines
    assert "key: temperature" in lines
    assert "tags: climate, living-room" in lines
    assert "confidence: 0.8" in lines
    assert "source: inferred" in lines
    assert "scope: user-1" in lines
    assert "last_accessed: -" in lines
    assert "metadata: -" in lines

    # The record is on disk: a fresh store in this process sees it.
    store = MemoryStore(data_dir / "memories.json")
    store.init()
    stored = store.get(memory_id)
    assert stored is not None
    assert stored.tags == ("climate", "living-room")
    store.close()


def test_add_and_get_json(run: Run) -> None:
    record = run_json(run, "add", "Allergic to peanuts", "--tags", "health")
    assert record["content"] == "Allergic to peanuts"
    assert record["category"] == "fact"
    assert record["tags"] == ["health"]
    assert record["created_at"] == record["updated_at"]
    # --json after the command works too.
    code, out, _ = run("get", record["id"], "--json")
    assert code == 0
    assert json.loads(out) == record


def test_get_shows_multiline_content_indented(run: Run) -> None:
    memory_id = run("add", "first line\nsecond line")[1].strip()
    out = run("get", memory_id)[1]
    assert "content: first line\n         second line\n" in out


def test_get_shows_no_terminal_controls(run: Run) -> None:
    memory_id = run("add", "bees\x1b]0;owned\x07 on\x9b2J the roof")[1].strip()
    out = run("get", memory_id)[1]
    assert "content: bees]0;owned on2J the roof\n" in out


def test_get_unknown_id(run: Run) -> None:
    assert_one_error(run("get", "nope"), 1, "error: no memory with id 'nope'")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("add", "   "), "content must not be empty"),
        (("add", "x" * 2001), "content is 2001 characters, the limit is 2000"),
        (("add", "x", "--category", "hobby"), "unknown category 'hobby'"),
        (("add", "x", "--confidence", "1.5"), "confidence must be a number"),
        (("add", "x", "--source", "guess"), "unknown source 'guess'"),
        (("add", "x", "--scope", "two words"), "scope must be"),
        (("add", "x", "--tags", "a" * 51), "a tag has at most 50 characters"),
    ],
)
def test_add_rejects_bad_input(
    run: Run, args: tuple[str, ...], message: str, data_dir: Path
) -> None:
    assert_one_error(run(*args), 1, message)
    assert run_json(run, "list")["total"] == 0


def test_memory_full(run: Run) -> None:
    assert run("--max-items", "2", "add", "one")[0] == 0
    assert run("--max-items", "2", "add", "two")[0] == 0
    assert_one_error(
        run("--max-items", "2", "add", "three"), 1, "error: memory is full (2 items)"
    )
    # 0 lifts the limit.
    assert run("--max-items", "0", "add", "three")[0] == 0
    assert run_json(run, "list")["total"] == 3


def test_limits_from_the_environment(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_MAX_ITEMS", "1")
    monkeypatch.setenv("MEMORY_MAX_CONTENT_LENGTH", "10")
    assert_one_error(run("add", "eleven char"), 1, "the limit is 10")
    assert run("add", "short")[0] == 0
    assert_one_error(run("add", "other"), 1, "memory is full (1 items)")
    # --max-items wins over the environment.
    assert run("--max-items", "5", "add", "other")[0] == 0


def test_bad_setting_in_the_environment(
    run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMORY_MAX_ITEMS", "lots")
    assert_one_error(
        run("list"), 1, "MEMORY_MAX_ITEMS: maxItems must be a whole number"
    )


# -- list ----------------------------------------------------------------------


def test_list_plain(run: Run, three: list[str]) -> None:
    code, out, err = run("list")
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        f"{three[2]}  [routine]  Waters the plants on Sunday",
        f"{three[1]}  [fact]  The cat is called Miso",
        f"{three[0]}  [preference]  Likes green tea in the morning",
        "showing 1-3 of 3",
    ]


def test_list_paging_sorting_and_filters(run: Run, three: list[str]) -> None:
    out = run("list", "--limit", "1", "--offset", "1", "--sort", "oldest")[1]
    assert out.splitlines() == [
        f"{three[1]}  [fact]  The cat is called Miso",
        "showing 2-2 of 3",
    ]
    assert run("list", "--offset", "5")[1] == "nothing at offset 5; there are 3\n"
    assert run("list", "--category", "fact")[1].splitlines()[0].startswith(three[1])

    page = run_json(run, "list", "--limit", "2", "--offset", "1")
    assert [m["id"] for m in page["items"]] == [three[1], three[0]]
    assert (page["total"], page["offset"], page["limit"]) == (3, 1, 2)


def test_list_by_tags_scope_and_usage(run: Run) -> None:
    tagged = run("add", "Kettle is in the kitchen", "--tags", "kitchen,home")[1].strip()
    run("add", "Car keys on the hook", "--tags", "home", "--scope", "anna")
    assert [
        m["id"] for m in run_json(run, "list", "--tags", "home,kitchen")["items"]
    ] == [tagged]
    anna = run_json(run, "list", "--scope", "anna")["items"]
    assert [m["content"] for m in anna] == ["Car keys on the hook"]
    assert run_json(run, "list", "--sort", "most_used")["total"] == 2
    assert run_json(run, "list", "--sort", "updated")["total"] == 2


def test_list_empty_and_trimmed(run: Run) -> None:
    assert run("list") == (0, "no memories\n", "")
    long_text = "word " * 60
    memory_id = run("add", long_text)[1].strip()
    line = run("list")[1].splitlines()[0]
    assert line.startswith(f"{memory_id}  [fact]  word word")
    assert line.endswith("...")
    assert len(line) <= 100


def test_list_line_has_no_control_characters(run: Run) -> None:
    run("add", "tab\there\x1b[31m red")
    line = run("list")[1].splitlines()[0]
    assert line.endswith("[fact]  tab here [31m red")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("list", "--limit", "0"), "argument --limit: must be 1 or more, not 0"),
        (("list", "--limit", "ten"), "argument --limit: 'ten' is not a whole number"),
        (("list", "--offset", "-1"), "argument --offset: must be 0 or more"),
        (("search", "tea", "--limit", "-3"), "argument --limit: must be 1 or more"),
        (("list", "--sort", "random"), "argument --sort: invalid choice"),
        (("--max-items", "-1", "list"), "argument --max-items: must be 0 or more"),
        (("frobnicate",), "argument COMMAND: invalid choice"),
        (("get",), "the following arguments are required: ID"),
        ((), "the following arguments are required: COMMAND"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(
    run: Run, args: tuple[str, ...], message: str
) -> None:
    assert_one_error(run(*args), 2, message)


def test_list_rejects_unknown_category_filter(run: Run) -> None:
    assert_one_error(run("list", "--category", "hobby"), 1, "unknown category")


def test_help_exits_0(run: Run) -> None:
    code, out, err = run("--help", data=False)
    assert (code, err) == (0, "")
    assert "assist-memory" in out
    for command in ("add", "get", "list", "update", "delete", "search", "prompt"):
        assert command in out


# -- update / delete -------------------------------------------------------------


def test_update(run: Run, three: list[str]) -> None:
    before = run_json(run, "get", three[0])
    assert run("update", three[0], "Likes black tea") == (
        0,
        f"updated {three[0]}\n",
        "",
    )
    after = run_json(
        run,
        "update",
        three[0],
        "--category",
        "fact",
        "--tags",
        "drink",
        "--key",
        "tea",
        "--confidence",
        "0.5",
    )
    assert after["content"] == "Likes black tea"
    assert (after["category"], after["tags"], after["key"]) == (
        "fact",
        ["drink"],
        "tea",
    )
    assert after["confidence"] == 0.5
    assert after["created_at"] == before["created_at"]
    assert after["updated_at"] >= before["updated_at"]
    # Empty tags clear them.
    assert run_json(run, "update", three[0], "--tags", "")["tags"] == []


def test_update_errors(run: Run, three: list[str]) -> None:
    assert_one_error(run("update", "nope", "text"), 1, "no memory with id 'nope'")
    assert_one_error(run("update", three[0], ""), 1, "content must not be empty")
    assert_one_error(run("update", three[0]), 1, "give at least one field to change")
    assert_one_error(
        run("update", three[0], "--category", "hobby"), 1, "unknown category"
    )
    assert run_json(run, "get", three[0])["content"] == "Likes green tea in the morning"


def test_delete(run: Run, three: list[str]) -> None:
    assert run("delete", three[0]) == (0, f"deleted {three[0]}\n", "")
    assert run_json(run, "delete", three[1]) == {"deleted": three[1]}
    assert [m["id"] for m in run_json(run, "list")["items"]] == [three[2]]
    assert_one_error(run("delete", three[0]), 1, f"no memory with id '{three[0]}'")


# -- search / prompt ---------------------------------------------------------------


def test_search(run: Run, three: list[str]) -> None:
    run("add", "Tea cups are in the top cupboard")
    code, out, err = run("search", "TEA")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 3
    assert lines[-1] == "2 matches"
    assert all("(matched: tea)" in line for line in lines[:2])
    assert run("search", "tea", "--limit", "1")[1].splitlines()[-1] == "1 matches"
    found = run_json(run, "search", "miso")
    assert [m["id"] for m in found] == [three[1]]
    assert found[0]["matched"] == ["miso"]
    assert set(found[0]["score_parts"]) >= {
        "keyword",
        "category",
        "recency",
        "frequency",
    }
    assert 0 < found[0]["score"] <= 1.3
    assert run("search", "coffee") == (0, "no matches\n", "")
    assert run_json(run, "search", "coffee") == []


def test_search_scope_and_topic(run: Run) -> None:
    run("add", "Anna likes tea", "--scope", "user-anna")
    run("add", "Tom likes tea", "--scope", "user-tom")
    run("add", "Everyone likes tea")
    found = run_json(run, "search", "tea", "--scope", "user-anna")
    assert sorted(m["content"] for m in found) == [
        "Anna likes tea",
        "Everyone likes tea",
    ]
    topical = run_json(run, "search", "likes tea", "--topic", "Tom")
    assert topical[0]["content"] == "Tom likes tea"
    assert topical[0]["score_parts"]["topic_boost"] == 1.3


def test_reindex(run: Run, three: list[str]) -> None:
    assert run("reindex") == (0, "indexed 3 memories\n", "")
    assert run_json(run, "reindex") == {"indexed": 3}
    assert [m["id"] for m in run_json(run, "search", "miso")] == [three[1]]


def test_search_empty_query(run: Run) -> None:
    assert_one_error(run("search", "  "), 1, "the search text must not be empty")


def test_prompt(run: Run, three: list[str]) -> None:
    code, out, err = run("prompt", "What should I drink?")
    assert (code, err) == (0, "")
    assert out == (
        "<long_term_memory>\n"
        "- Likes green tea in the morning\n"
        "- The cat is called Miso\n"
        "- Waters the plants on Sunday\n"
        "</long_term_memory>\n"
        "\n"
        "What should I drink?\n"
    )
    assert run("prompt", "Hi", "--query", "cat")[1] == (
        "<long_term_memory>\n- The cat is called Miso\n</long_term_memory>\n\nHi\n"
    )
    limited = run_json(run, "prompt", "Hi", "--limit", "2")
    assert limited["memory_ids"] == three[:2]
    assert limited["prompt"].endswith("</long_term_memory>\n\nHi")
    # No matching memory: the prompt alone.
    assert run("prompt", "Hi", "--query", "coffee")[1] == "Hi\n"


@pytest.mark.parametrize(
    ("text", "prompt", "shown"),
    [
        (
            "Likes tea\x1b]0;owned\x07\x08\x7f\x9b2J, 80 m² flat，quiet",
            "What\x1b[2J now?",
            "- Likes tea]0;owned2J, 80 m² flat，quiet\n</long_term_memory>\n\nWhat[2J now?\n",
        ),
        (
            "zero\u200bwidth\u200d joiner, family 👨\u200d👩\u200d👧",
            "Who?\u200d",
            "- zerowidth joiner, family 👨\u200d👩\u200d👧\n</long_term_memory>\n\nWho?\n",
        ),
    ],
    ids=["terminal controls", "a joiner outside emoji"],
)
def test_prompt_leaves_out_what_a_reader_cannot_see(
    run: Run, data_dir: Path, text: str, prompt: str, shown: str
) -> None:
    run("add", text)

    code, out, err = run("prompt", prompt)

    assert (code, err) == (0, "")
    assert out == "<long_term_memory>\n" + shown
    # Only the prompt changes: the memory keeps every character it was given.
    (kept,) = MemoryStore(data_dir / "memories.json").list().items
    assert kept.content == text


def test_prompt_leaves_out_a_memory_that_ended(run: Run, data_dir: Path) -> None:
    now = datetime.now(UTC)
    store = MemoryStore(data_dir / "memories.json")
    store.init()
    gone = store.add(
        "Aunt May is staying in the attic room",
        expires_at=(now - timedelta(days=1)).isoformat(),
    ).id
    staying = store.add(
        "Uncle Bob is staying in the attic room",
        expires_at=(now + timedelta(days=1)).isoformat(),
    ).id
    store.close()
    question = "Who is staying in the attic room?"

    shown = (
        "<long_term_memory>\n- Uncle Bob is staying in the attic room\n"
        f"</long_term_memory>\n\n{question}\n"
    )
    assert run("prompt", question) == (0, shown, "")
    assert run("prompt", question, "--query", "attic room") == (0, shown, "")
    for query in ((), ("--query", "attic room")):
        answer = run_json(run, "prompt", question, *query)
        assert answer["memory_ids"] == [staying]
    # Kept, for a person to see as ended.
    assert (
        run_json(run, "get", gone)["content"] == "Aunt May is staying in the attic room"
    )


def test_prompt_without_memories(run: Run) -> None:
    assert run_json(run, "prompt", "Hello") == {"prompt": "Hello", "memory_ids": []}


# -- export / import / clear ---------------------------------------------------------


def test_export_clear_import_round_trip(
    run: Run, three: list[str], tmp_path: Path
) -> None:
    run("update", three[1], "The cat is called Miso and is grey")
    before = run_json(run, "list", "--sort", "oldest")["items"]
    target = tmp_path / "backup.json"

    assert run("export", str(target)) == (
        0,
        f"exported 3 memories to {target}\n",
        "",
    )
    document = json.loads(target.read_text("utf-8"))
    assert document["format"] == "assist_memory_export"
    assert document["count"] == 3

    assert run("clear", "--yes") == (0, "removed 3 memories\n", "")
    assert run("list")[1] == "no memories\n"

    assert run("import", str(target)) == (
        0,
        "imported: 3 added, 0 updated, 3 total\n",
        "",
    )
    after = run_json(run, "list", "--sort", "oldest")["items"]
    assert after == before  # same ids, contents and timestamps


def test_export_to_stdout(run: Run, three: list[str]) -> None:
    for args in (("export",), ("export", "-"), ("--json", "export")):
        code, out, err = run(*args)
        assert (code, err) == (0, "")
        document = json.loads(out)
        assert [m["id"] for m in document["memories"]] == three


def test_export_keeps_unicode_readable(run: Run, tmp_path: Path) -> None:
    run("add", "喜欢喝绿茶")
    assert "喜欢喝绿茶" in run("export")[1]
    target = tmp_path / "out.json"
    assert run_json(run, "export", str(target)) == {
        "exported": 1,
        "file": str(target),
    }
    assert "喜欢喝绿茶" in target.read_text("utf-8")


def test_export_to_missing_folder(run: Run, tmp_path: Path) -> None:
    target = tmp_path / "missing" / "out.json"
    assert_one_error(run("export", str(target)), 1, f"cannot write {target}")


def test_import_merge_and_replace(run: Run, three: list[str], tmp_path: Path) -> None:
    backup = tmp_path / "backup.json"
    run("export", str(backup))
    run("delete", three[0])
    run("update", three[1], "Changed after the backup")
    extra = run("add", "Added after the backup")[1].strip()

    # Merge: restores the deleted one and the old text, keeps the new one; the
    # third, the same in the file, is not counted as updated.
    assert run_json(run, "import", str(backup)) == {
        "added": 1,
        "updated": 1,
        "total": 4,
    }
    assert run_json(run, "get", three[1])["content"] == "The cat is called Miso"
    assert run_json(run, "get", extra)["content"] == "Added after the backup"

    # Replace: exactly the backup (its three as they are here, the new one dropped).
    assert run("import", "--replace", str(backup))[1] == (
        "imported: 0 added, 0 updated, 3 total\n"
    )
    assert sorted(m["id"] for m in run_json(run, "list")["items"]) == sorted(three)
    assert_one_error(run("get", extra), 1, "no memory with id")


def test_import_from_stdin(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    records = [
        {
            "id": "kept-id-1",
            "content": "Imported from another tool",
            "createdAt": "2024-05-01T10:00:00+00:00",
            "updatedAt": "2024-05-02T10:00:00+00:00",
            "metadata": {"origin": "notes app"},
        }
    ]
    source = tmp_path / "plain.json"
    source.write_text(json.dumps(records), "utf-8")
    with source.open(encoding="utf-8") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        assert run("import", "-")[1] == "imported: 1 added, 0 updated, 1 total\n"
    record = run_json(run, "get", "kept-id-1")
    assert record["created_at"] == "2024-05-01T10:00:00+00:00"
    assert record["updated_at"] == "2024-05-02T10:00:00+00:00"
    assert 'metadata: {"origin": "notes app"}' in run("get", "kept-id-1")[1]


def test_import_errors(run: Run, three: list[str], tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    assert_one_error(
        run("import", str(missing)),
        1,
        f"error: cannot read {missing}: No such file or directory",
    )
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"memories": [', "utf-8")
    assert_one_error(
        run("import", str(bad_json)), 1, f"error: {bad_json} is not valid JSON:"
    )
    not_text = tmp_path / "binary.json"
    not_text.write_bytes(b"\xff\xfe\x00garbage")
    assert_one_error(run("import", str(not_text)), 1, "is not UTF-8 text")
    wrong_shape = tmp_path / "shape.json"
    wrong_shape.write_text('{"hello": "world"}', "utf-8")
    assert_one_error(
        run("import", str(wrong_shape)), 1, "an import must be a list of memories"
    )
    bad_record = tmp_path / "record.json"
    bad_record.write_text(json.dumps([{"id": "a", "content": ""}]), "utf-8")
    assert_one_error(
        run("import", str(bad_record)), 1, "record 1: content must not be empty"
    )
    assert_one_error(run("import", str(tmp_path)), 1, "cannot read")
    # Nothing changed.
    assert sorted(m["id"] for m in run_json(run, "list")["items"]) == sorted(three)


def test_import_over_the_limit(run: Run, three: list[str], tmp_path: Path) -> None:
    backup = tmp_path / "backup.json"
    run("export", str(backup))
    run("clear", "--yes")
    assert_one_error(
        run("--max-items", "2", "import", str(backup)), 1, "memory is full (2 items)"
    )


def test_clear(run: Run, three: list[str]) -> None:
    assert_one_error(run("clear"), 2, "add --yes to confirm")
    assert run_json(run, "list")["total"] == 3
    assert run_json(run, "clear", "--yes") == {"removed": 3}
    assert run("clear", "--yes") == (0, "removed 0 memories\n", "")


# -- where the store lives, damaged files --------------------------------------------


def test_memory_file_from_the_environment(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    memory_file = tmp_path / "elsewhere" / "mine.json"
    monkeypatch.setenv("MEMORY_FILE", str(memory_file))
    memory_id = run("add", "Stored where MEMORY_FILE says", data=False)[1].strip()
    assert memory_id in memory_file.read_text("utf-8")
    # --data-dir wins over MEMORY_FILE.
    assert run("list")[1] == "no memories\n"
    assert run("list", data=False)[1].startswith(memory_id)


def test_default_path_is_data_in_the_working_folder(
    run: Run, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    if Path("/data/options.json").exists():  # pragma: no cover - inside an add-on
        pytest.skip("running inside an add-on container")
    monkeypatch.chdir(tmp_path)
    memory_id = run("add", "In the working folder", data=False)[1].strip()
    assert memory_id in (tmp_path / "data" / "memories.json").read_text("utf-8")


def test_corrupt_store_is_set_aside_with_a_warning(run: Run, data_dir: Path) -> None:
    data_dir.mkdir()
    (data_dir / "memories.json").write_text("{not json", "utf-8")
    code, out, err = run("list")
    assert (code, out) == (0, "no memories\n")
    moved = list(data_dir.glob("memories.corrupt-*.json"))
    assert len(moved) == 1
    assert moved[0].read_text("utf-8") == "{not json"
    assert err == (
        f"warning: {data_dir / 'memories.json'} was not valid and was moved to "
        f"{moved[0]}\n"
    )
    # The store works again, without another warning.
    assert run("add", "fresh start")[0] == 0
    assert run("list")[2] == ""


def test_a_memory_md_edit_kept_aside_is_a_warning(run: Run, data_dir: Path) -> None:
    assert run("add", "Likes tea")[0] == 0
    memory_md = data_dir / "prompts" / "memory" / "MEMORY.md"
    memory_md.write_text("Prose without a single bullet.\n", "utf-8")
    # A reader leaves the edit where it is; the next writer applies it or keeps it.
    assert "Likes tea" in run("list")[1]
    assert memory_md.read_text("utf-8") == "Prose without a single bullet.\n"

    code, _, err = run("add", "Owns a bike")

    assert code == 0
    [kept] = list(memory_md.parent.glob("MEMORY.rejected-*.md"))
    assert err == (
        f"warning: the edit of {memory_md} could not be applied safely and changed "
        f"nothing; it is kept as {kept}\n"
    )


def test_invalid_records_and_damaged_journal_warnings(run: Run, data_dir: Path) -> None:
    data_dir.mkdir()
    good = {"id": "good", "content": "A valid memory"}
    (data_dir / "memories.json").write_text(
        json.dumps([good, {"id": "bad", "content": ""}]), "utf-8"
    )
    (data_dir / "memories.journal").write_text(
        '{"op":"begin","generation":0}\nnot json\n', "utf-8"
    )
    code, out, err = run("list")
    assert code == 0
    assert out.startswith("good  [fact]  A valid memory\n")
    lines = err.splitlines()
    assert len(lines) == 2
    (invalid,) = data_dir.glob("memories.invalid-*.json")
    (journal,) = data_dir.glob("memories.journal-*.journal")
    assert (
        f"warning: invalid records in {data_dir / 'memories.json'} "
        f"were moved to {invalid}"
    ) in lines
    assert (
        f"warning: {data_dir / 'memories.journal'} was not valid and was moved to "
        f"{journal}"
    ) in lines


def test_a_record_with_an_out_of_range_time_does_not_block_the_store(
    run: Run, data_dir: Path
) -> None:
    data_dir.mkdir()
    good = {"id": "good", "content": "A valid memory"}
    bad = {"id": "bad1", "content": "x", "created_at": "0001-01-01T00:00:00+14:00"}
    (data_dir / "memories.json").write_text(json.dumps([good, bad]), "utf-8")

    code, out, err = run("list")

    assert code == 0
    assert out.startswith("good  [fact]  A valid memory\n")
    (invalid,) = data_dir.glob("memories.invalid-*.json")
    assert err == (
        f"warning: invalid records in {data_dir / 'memories.json'} "
        f"were moved to {invalid}\n"
    )
    assert json.loads(invalid.read_text("utf-8")) == [bad]


def test_unusable_data_dir(run: Run, data_dir: Path) -> None:
    data_dir.write_text("a file, not a folder", "utf-8")
    code, out, err = run("list")
    assert (code, out) == (1, "")
    assert err.startswith("error: cannot write")
    assert err.count("\n") == 1


# -- interruptions and pipes ------------------------------------------------------------


class _InterruptingStdin:
    """A stdin whose reader presses Ctrl+C (the one thing a file cannot do)."""

    def read(self) -> str:
        raise KeyboardInterrupt


def test_interrupt_exits_130(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", _InterruptingStdin())
    assert_one_error(run("import", "-"), 130, "error: interrupted")


def test_broken_pipe_is_quiet(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # stdout is a pipe whose reader has gone (`assist-memory list | head -0`).
    read_end, write_end = os.pipe()
    os.close(read_end)
    with open(write_end, "w", encoding="utf-8") as stream:
        monkeypatch.setattr(sys, "stdout", stream)
        assert main(["--data-dir", str(data_dir), "add", "x"]) == 141
        with contextlib.suppress(BrokenPipeError):
            stream.flush()
    assert capsys.readouterr().err == ""
    # The memory was stored all the same.
    store = MemoryStore(data_dir / "memories.json")
    assert store.count() == 1
    store.close()


# -- the real entry point -------------------------------------------------------------


def test_console_entry_point(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ENV_VARS}
    base = [
        sys.executable,
        "-m",
        "assist_memory_engine.host.cli",
        "--data-dir",
        str(tmp_path),
    ]

    added = subprocess.run(
        [*base, "add", "From a real process"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert (added.returncode, added.stderr) == (0, "")
    memory_id = added.stdout.strip()

    listed = subprocess.run(
        [*base, "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert listed.returncode == 0
    assert [m["id"] for m in json.loads(listed.stdout)["items"]] == [memory_id]

    failed = subprocess.run(
        [*base, "get", "nope"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=60,
    )
    assert failed.returncode == 1
    assert failed.stdout == ""
    assert failed.stderr == "error: no memory with id 'nope'\n"
    assert "Traceback" not in failed.stderr


def _files(folder: Path) -> dict[Path, tuple[bytes, int]]:
    # Not SQLite's shared memory (-shm): every reader of a database marks its reads
    # there, by design; it holds no data.
    return {
        path: (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.name.endswith("-shm")
    }


def test_reading_commands_leave_another_programs_files_alone(
    run: Run, data_dir: Path
) -> None:
    # Another program (Home Assistant, the server) owns the folder: its latest
    # change is still in the journal, its index and MEMORY.md are up to date.
    owner = MemoryEngine(data_dir / "memories.json", StoreSettings(max_items=0))
    owner.init()
    kept = owner.store.add("Likes green tea")
    owner.flush()
    before = _files(data_dir)
    loads = owner.store.outside_loads

    code, out, _ = run("search", "green tea")
    assert (code, "Likes green tea" in out) == (0, True)
    assert run("get", kept.id)[0] == 0
    assert kept.id in run("list")[1]
    assert kept.id in run("export")[1]

    assert _files(data_dir) == before  # the same bytes, not even touched
    assert [r.memory.id for r in owner.search("green tea")] == [kept.id]
    assert owner.store.outside_loads == loads  # nothing to load again
    owner.close()
