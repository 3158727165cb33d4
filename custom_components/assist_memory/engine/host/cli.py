"""The `assist-memory` command line: manage the memory store from a shell.

    assist-memory [--data-dir DIR] [--max-items N] [--json] COMMAND ...

Commands: add, get, list, update, delete, search, prompt, export, import, clear,
reindex, and serve (the memory server; its settings are read in serve_cli.py).
`--json` (before or after the command) prints machine-readable output. An error
exits non-zero with one line on stderr, never a traceback: 1 for a failed
operation, 2 for a usage mistake, 130 when interrupted.

Every command is one small `_cmd_*` function plus one `_setup_*` function that
declares its arguments; `COMMANDS` maps the command names to both.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
import json
import logging
import os
from pathlib import Path
import sys
from typing import Any, NamedTuple, NoReturn

from ..conversation.compose import without_controls
from ..conversation.prompt import build_prompt_with_memory
from ..errors import MemoryEngineError, MemoryNotFoundError
from ..memory.memory_engine import MemoryEngine
from ..search.scoring import ScoredMemory
from ..storage.durable import write_atomically
from ..storage.models import CATEGORIES, HOUSEHOLD_SCOPE, SOURCES, Memory
from ..storage.paths import resolve_store_path
from ..storage.settings import StoreSettings
from ..storage.store import SORT_ORDERS, ImportMode, MemoryStore
from . import serve_cli

PROG = "assist-memory"
LINE_WIDTH = 100
DEFAULT_LIMIT = 20
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports `cmd | head`
STDIO = "-"


# -- output --------------------------------------------------------------------


def _out(text: str) -> None:
    sys.stdout.write(f"{text}\n")


def _err(text: str) -> None:
    sys.stderr.write(f"{_one_line(text)}\n")


def _out_json(data: object) -> None:
    _out(json.dumps(data, indent=2, ensure_ascii=False))


def _one_line(text: str) -> str:
    """Collapse whitespace and drop control characters (no terminal escapes)."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def _summary(memory: Memory) -> str:
    """`ID  [category]  content`, the content cut to fit LINE_WIDTH."""
    prefix = f"{memory.id}  [{memory.category}]  "
    text = _one_line(memory.content)
    room = max(LINE_WIDTH - len(prefix), 20)
    if len(text) > room:
        text = text[: room - 3].rstrip() + "..."
    return prefix + text


def _format_value(value: object) -> str:
    if value is None or (isinstance(value, list | dict) and not value):
        return "-"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _details(memory: Memory) -> list[str]:
    """`field: value` lines; continuation lines of the content are indented.

    No control characters: what a memory holds cannot drive the terminal.
    """
    lines: list[str] = []
    for name, value in memory.to_dict().items():
        label = f"{name}: "
        text = without_controls(_format_value(value))
        text = text.replace("\n", "\n" + " " * len(label))
        lines.append(label + text)
    return lines


def _show_memory(memory: Memory, as_json: bool) -> None:
    if as_json:
        _out_json(memory.to_dict())
    else:
        _out("\n".join(_details(memory)))


def _show_memories(memories: list[Memory], footer: str, as_json: bool) -> None:
    if as_json:
        _out_json([m.to_dict() for m in memories])
        return
    for memory in memories:
        _out(_summary(memory))
    _out(footer)


# -- argument types ------------------------------------------------------------


def _int_at_least(minimum: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{raw!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {minimum} or more, not {value}")
        return value

    return parse


_positive_int = _int_at_least(1)
_non_negative_int = _int_at_least(0)


# -- running context -----------------------------------------------------------


@dataclass(slots=True)
class Context:
    """What a command needs: its arguments and the engine (opened on first use)."""

    args: argparse.Namespace
    path: Path
    settings: StoreSettings
    # A command that only reads leaves every file as it found it.
    read_only: bool = False
    _engine: MemoryEngine | None = None

    @property
    def as_json(self) -> bool:
        """True when machine-readable output was asked for."""
        return bool(self.args.json)

    @property
    def engine(self) -> MemoryEngine:
        """The store and its index, loaded on first use; damaged files are reported."""
        if self._engine is None:
            engine = MemoryEngine(self.path, self.settings, read_only=self.read_only)
            report = engine.init()
            self._engine = engine
            for moved in report.set_aside:
                _err(_set_aside_warning(engine.store, moved))
            for kept in report.rejected_edits:
                _err(
                    f"warning: the edit of {engine.mirror.path} could not be applied "
                    f"safely and changed nothing; it is kept as {kept}"
                )
        return self._engine

    @property
    def store(self) -> MemoryStore:
        """The memory store."""
        return self.engine.store

    def close(self) -> None:
        """Fold the store's journal into its snapshot and close the index."""
        if self._engine is not None:
            engine, self._engine = self._engine, None
            engine.close()


def _set_aside_warning(store: MemoryStore, moved: Path) -> str:
    # The store names a moved file `<stem>.<label>-<time><suffix>`.
    label = moved.name.removeprefix(f"{store.path.stem}.")
    if label.startswith("invalid-"):
        return f"warning: invalid records in {store.path} were moved to {moved}"
    original = store.journal_path if label.startswith("journal-") else store.path
    return f"warning: {original} was not valid and was moved to {moved}"


def _make_context(args: argparse.Namespace) -> Context:
    settings = StoreSettings.from_env(os.environ)
    if args.max_items is not None:
        settings = replace(settings, max_items=args.max_items)
    path = resolve_store_path(os.environ, data_dir=args.data_dir)
    read_only = COMMANDS[args.command].reads_only
    return Context(args=args, path=path, settings=settings, read_only=read_only)


def _require(store: MemoryStore, memory_id: str) -> Memory:
    if (memory := store.get(memory_id)) is None:
        raise MemoryNotFoundError(memory_id)
    return memory


def _describe_os_error(err: OSError) -> str:
    reason = err.strerror or str(err)
    return reason if err.filename is None else f"{err.filename}: {reason}"


def _fail(message: str, code: int = EXIT_FAILURE) -> int:
    _err(f"error: {message}")
    return code


# -- commands ------------------------------------------------------------------


def _setup_fields(parser: argparse.ArgumentParser) -> None:
    """Options for the fields of a memory, shared by add and update."""
    parser.add_argument("--category", help=f"one of: {', '.join(CATEGORIES)}")
    parser.add_argument("--tags", help="comma-separated tags, e.g. kitchen,coffee")
    parser.add_argument("--key", help="a short key naming what the memory is about")
    parser.add_argument("--confidence", type=float, help="a number from 0 to 1")
    parser.add_argument("--source", help=f"one of: {', '.join(SOURCES)}")
    parser.add_argument("--scope", help="'household' (default) or a user id")


def _field_options(args: argparse.Namespace) -> dict[str, Any]:
    names = ("category", "tags", "key", "confidence", "source", "scope")
    return {
        name: getattr(args, name) for name in names if getattr(args, name) is not None
    }


def _setup_add(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", metavar="TEXT", help="what to remember")
    _setup_fields(parser)


def _cmd_add(ctx: Context) -> int:
    memory = ctx.store.add(ctx.args.text, **_field_options(ctx.args))
    if ctx.as_json:
        _out_json(memory.to_dict())
    else:
        _out(memory.id)
    return EXIT_OK


def _setup_get(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID")


def _cmd_get(ctx: Context) -> int:
    _show_memory(_require(ctx.store, ctx.args.id), ctx.as_json)
    return EXIT_OK


def _setup_list(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--limit", type=_positive_int, default=DEFAULT_LIMIT)
    parser.add_argument("--offset", type=_non_negative_int, default=0)
    parser.add_argument("--category", help="only this category")
    parser.add_argument("--scope", help="only this scope")
    parser.add_argument("--tags", help="only memories with all these tags")
    parser.add_argument("--sort", choices=SORT_ORDERS, default="newest")


def _cmd_list(ctx: Context) -> int:
    args = ctx.args
    page = ctx.store.list(
        offset=args.offset,
        limit=args.limit,
        category=args.category,
        scope=args.scope,
        tags=args.tags,
        sort=args.sort,
    )
    if ctx.as_json:
        _out_json(
            {
                "items": [m.to_dict() for m in page.items],
                "total": page.total,
                "offset": page.offset,
                "limit": page.limit,
            }
        )
        return EXIT_OK
    if page.items:
        last = page.offset + len(page.items)
        footer = f"showing {page.offset + 1}-{last} of {page.total}"
    elif page.total:
        footer = f"nothing at offset {page.offset}; there are {page.total}"
    else:
        footer = "no memories"
    _show_memories(page.items, footer, as_json=False)
    return EXIT_OK


def _setup_update(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID")
    parser.add_argument("text", metavar="TEXT", nargs="?", help="the new content")
    _setup_fields(parser)


def _cmd_update(ctx: Context) -> int:
    args = ctx.args
    memory = ctx.store.update(args.id, args.text, **_field_options(args))
    if memory is None:
        raise MemoryNotFoundError(args.id)
    if ctx.as_json:
        _out_json(memory.to_dict())
    else:
        _out(f"updated {memory.id}")
    return EXIT_OK


def _setup_delete(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", metavar="ID")


def _cmd_delete(ctx: Context) -> int:
    from ..memory.forgetting import forget  # a search does not need it

    if not forget(ctx.engine, [ctx.args.id]):
        raise MemoryNotFoundError(ctx.args.id)
    if ctx.as_json:
        _out_json({"deleted": ctx.args.id})
    else:
        _out(f"deleted {ctx.args.id}")
    return EXIT_OK


def _setup_search(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("query", metavar="QUERY")
    parser.add_argument(
        "--limit",
        type=_positive_int,
        help="at most N results (default: MEMORY_RETRIEVAL_LIMIT, 5)",
    )
    parser.add_argument("--scope", help="the household's memories and this scope's")
    parser.add_argument("--topic", help="rank memories about this topic higher")


def _cmd_search(ctx: Context) -> int:
    args = ctx.args
    if not args.query.strip():
        return _fail("the search text must not be empty")
    scopes = (
        None
        if args.scope is None
        else list(dict.fromkeys([HOUSEHOLD_SCOPE, args.scope]))
    )
    found = ctx.engine.search(
        args.query, limit=args.limit, scopes=scopes, topic=args.topic
    )
    if ctx.as_json:
        _out_json([result.to_dict() for result in found])
        return EXIT_OK
    for result in found:
        _out(_scored_summary(result))
    _out(f"{len(found)} matches" if found else "no matches")
    return EXIT_OK


def _scored_summary(result: ScoredMemory) -> str:
    """`ID  0.734  [category]  content  (matched: a, b)`."""
    line = _summary(result.memory).replace("  [", f"  {result.score:.3f}  [", 1)
    if result.matched:
        line += f"  (matched: {', '.join(result.matched)})"
    return line


def _setup_reindex(parser: argparse.ArgumentParser) -> None:
    del parser  # no arguments


def _cmd_reindex(ctx: Context) -> int:
    indexed = ctx.engine.reindex()
    if ctx.as_json:
        _out_json({"indexed": indexed})
    else:
        _out(f"indexed {indexed} memories")
    return EXIT_OK


def _setup_prompt(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", metavar="TEXT", help="the user's prompt")
    parser.add_argument("--query", help="use the memories most relevant to this text")
    parser.add_argument("--limit", type=_positive_int, help="at most N memories")


def _cmd_prompt(ctx: Context) -> int:
    args = ctx.args
    # What the memory server's prompt gets: nothing whose end has come.
    memories = ctx.engine.prompt_memories(args.query, limit=args.limit)
    prompt = build_prompt_with_memory(memories, args.text)
    if ctx.as_json:
        _out_json({"prompt": prompt, "memory_ids": [m.id for m in memories]})
    else:
        _out(prompt)
    return EXIT_OK


def _setup_export(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "file", metavar="FILE", nargs="?", default=STDIO, help="default: stdout"
    )


def _cmd_export(ctx: Context) -> int:
    document = ctx.store.export()
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if ctx.args.file == STDIO:
        sys.stdout.write(text)
        return EXIT_OK
    write_atomically(Path(ctx.args.file), [text])
    if ctx.as_json:
        _out_json({"exported": document["count"], "file": ctx.args.file})
    else:
        _out(f"exported {document['count']} memories to {ctx.args.file}")
    return EXIT_OK


def _setup_import(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="an export file, or - for stdin")
    parser.add_argument(
        "--replace", action="store_true", help="drop memories not in the file"
    )


def _read_document(name: str) -> object:
    """The JSON document in file `name` (or stdin for `-`)."""
    label = "stdin" if name == STDIO else name
    try:
        text = sys.stdin.read() if name == STDIO else Path(name).read_text("utf-8")
    except OSError as err:
        raise OSError(err.errno, f"cannot read {label}: {err.strerror}") from err
    except UnicodeDecodeError:
        raise ValueError(f"{label} is not UTF-8 text") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(
            f"{label} is not valid JSON: {err.msg} (line {err.lineno}, column {err.colno})"
        ) from None


def _cmd_import(ctx: Context) -> int:
    document = _read_document(ctx.args.file)
    mode: ImportMode = "replace" if ctx.args.replace else "merge"
    result = ctx.store.import_(document, mode=mode)
    if ctx.as_json:
        _out_json(
            {"added": result.added, "updated": result.updated, "total": result.total}
        )
    else:
        _out(
            f"imported: {result.added} added, {result.updated} updated, "
            f"{result.total} total"
        )
    return EXIT_OK


def _setup_clear(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--yes", action="store_true", help="confirm removing every memory"
    )


def _cmd_clear(ctx: Context) -> int:
    if not ctx.args.yes:
        return _fail(
            "clear removes every memory; add --yes to confirm", code=EXIT_USAGE
        )
    from ..memory.forgetting import forget_all  # see `_cmd_delete`

    removed = forget_all(ctx.engine)
    if ctx.as_json:
        _out_json({"removed": removed})
    else:
        _out(f"removed {removed} memories")
    return EXIT_OK


def _setup_serve(parser: argparse.ArgumentParser) -> None:
    # After the command too (`serve --data-dir DIR`), without resetting the value
    # given before it.
    _add_store_options(parser, default=argparse.SUPPRESS)
    serve_cli.add_arguments(parser)


def _cmd_serve(ctx: Context) -> int:
    return serve_cli.run(ctx.args, os.environ)


class Command(NamedTuple):
    """One subcommand: its help line, its arguments and what it does."""

    help: str
    setup: Callable[[argparse.ArgumentParser], None]
    run: Callable[[Context], int]
    reads_only: bool = False


COMMANDS: dict[str, Command] = {
    "add": Command("store a new memory", _setup_add, _cmd_add),
    "get": Command("show one memory", _setup_get, _cmd_get, reads_only=True),
    "list": Command(
        "list memories, newest first", _setup_list, _cmd_list, reads_only=True
    ),
    "update": Command("change a memory", _setup_update, _cmd_update),
    "delete": Command("remove a memory", _setup_delete, _cmd_delete),
    "search": Command(
        "find the most relevant memories", _setup_search, _cmd_search, reads_only=True
    ),
    "prompt": Command(
        "show a prompt with memories in front", _setup_prompt, _cmd_prompt
    ),
    "export": Command(
        "write every memory as JSON", _setup_export, _cmd_export, reads_only=True
    ),
    "import": Command("restore memories from an export", _setup_import, _cmd_import),
    "clear": Command("remove every memory", _setup_clear, _cmd_clear),
    "reindex": Command("rebuild the search index", _setup_reindex, _cmd_reindex),
    "serve": Command(
        "run the memory server: REST API, web UI (the add-on runs this)",
        _setup_serve,
        _cmd_serve,
    ),
}


# -- parser and entry point ------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage mistake is one line on stderr (exit 2)."""

    def error(self, message: str) -> NoReturn:
        _err(f"error: {message} (see '{self.prog} --help')")
        self.exit(EXIT_USAGE)


def _add_store_options(parser: argparse.ArgumentParser, default: object) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        default=default,
        help="keep memories.json in DIR (overrides MEMORY_FILE and the add-on path)",
    )
    parser.add_argument(
        "--max-items",
        type=_non_negative_int,
        metavar="N",
        default=default,
        help="store at most N memories, 0 for no limit (overrides MEMORY_MAX_ITEMS)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The parser for every command; `--json` works before and after the command."""
    parser = _Parser(
        prog=PROG, description="Long-term memory for Home Assistant voice assistants."
    )
    _add_store_options(parser, default=None)
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    # The subcommands' copy must not reset a --json given before the command.
    json_after = _Parser(add_help=False)
    json_after.add_argument(
        "--json",
        action="store_true",
        default=argparse.SUPPRESS,
        help="machine-readable output",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, command in COMMANDS.items():
        sub = subparsers.add_parser(
            name, help=command.help, description=command.help, parents=[json_after]
        )
        command.setup(sub)
    return parser


def _quiet_engine_logs() -> None:
    """The CLI reports problems itself; keep the engine's log lines off stderr."""
    logger = logging.getLogger(__package__)
    if not logger.handlers:
        logger.addHandler(logging.NullHandler())


def _silence_stdout() -> None:
    """After a broken pipe, send what is left to /dev/null (no error at exit)."""
    with suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command and return the exit code."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as done:  # --help, or a usage error already reported
        return done.code if isinstance(done.code, int) else EXIT_USAGE
    _quiet_engine_logs()
    try:
        ctx = _make_context(args)
        try:
            code = COMMANDS[args.command].run(ctx)
        finally:
            ctx.close()
        sys.stdout.flush()
    except KeyboardInterrupt:
        return _fail("interrupted", code=EXIT_INTERRUPTED)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except MemoryEngineError as err:
        return _fail(err.message)
    except OSError as err:
        return _fail(_describe_os_error(err))
    except ValueError as err:
        return _fail(str(err))
    return code


if __name__ == "__main__":  # pragma: no cover - run by the subprocess test
    sys.exit(main())
