"""Crash the memory server with SIGKILL under sustained writes; check nothing is lost.

    script/chaos [--kills 100] [--workers 8] [--seed N] [--data-dir DIR]

The server (`assist-memory serve`, a real process on 127.0.0.1) gets mixed writes from
concurrent clients: add, update, delete, import (merge) and compaction (now, when due,
and now and then an undo). Compaction asks a stand-in chat model on 127.0.0.1
(tests/support/compaction_llm.py, a process of its own) that keeps every fact once:
since every content sent is unique, a compaction must keep every memory with its id
and text, and the checks below hold through it. Meanwhile a person edits MEMORY.md
(saves that add bullets, remove or rewrite bullets added by hand earlier, now and
then prose; most are still waiting for the server's quiet spell when it dies), and
the command line runs on the same folder (`list`, and `add`, acknowledged by its
exit), applying any edit it finds. At a random moment the server is killed with
SIGKILL, then started again on the same folder, and the data is checked:

- the store parses (the server starts and exports it),
- every acknowledged write is there (an add or import with its content, or the
  content of a later write to the same id that was in flight), every acknowledged
  delete is gone; no update is reverted; only a memory whose line a hand edit
  removed or rewrote may be gone or rewritten,
- nothing unacknowledged is half there: each record is exactly one of the contents
  sent for its id,
- ids are unique, and the index agrees with the store: a search for each memory's
  unique word finds it.

Prints the counts; exits 1 on the first violation. Each memory's content carries a
word made for it (letters only), so a search finds exactly that memory.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from collections.abc import Iterator
import contextlib
from dataclasses import dataclass, field
import itertools
import json
import os
from pathlib import Path
import random
import re
import signal
import socket
import stat
import string
import sys
import tempfile

import aiohttp

BIN = Path(sys.executable).parent
_SERVING = re.compile(r"serving on (http://\S+)")
ROOT = Path(__file__).resolve().parent.parent
# The writers delete above this many memories (the store has no limit here).
TARGET_SIZE = 60
# How the person edits MEMORY.md: the pause between saves, in seconds.
EDIT_PAUSE = (0.02, 0.25)
# The server's settings: no limit on the number of memories, compaction on and due
# from two facts, asking the stand-in model (its address is added at start).
SERVER_ENV = {
    "MEMORY_MAX_ITEMS": "0",
    "MEMORY_COMPACTION_ENABLED": "true",
    "MEMORY_COMPACTION_THRESHOLD": "2",
    "LLM_MODEL": "chaos-compactor",
    # Its checks find each memory by its unique word alone; meaning would add
    # neighbours (and the model's load to every restart).
    "EMBEDDING_LOCAL": "off",
}


def unique_word(number: int) -> str:
    """A word no other memory has: "chq" and the number in letters."""
    letters = string.ascii_lowercase
    digits = []
    while True:
        number, rest = divmod(number, 26)
        digits.append(letters[rest])
        if not number:
            break
    return "chq" + "".join(reversed(digits)) + "zz"


@dataclass
class Ledger:
    """What the clients were told, and what they sent without an answer yet."""

    # id -> the contents the record may have: the acknowledged one first, then any
    # sent since by writes that were not answered.
    present: dict[str, list[str]] = field(default_factory=dict)
    # ids whose delete was acknowledged.
    deleted: set[str] = field(default_factory=set)
    # Contents of adds sent without an answer (the id is not known yet).
    pending_adds: set[str] = field(default_factory=set)
    # ids whose delete was sent without an answer.
    pending_deletes: set[str] = field(default_factory=set)
    words: Iterator[int] = field(default_factory=itertools.count)
    acknowledged: int = 0
    # Compactions and undos answered with counts (something was done).
    compactions: int = 0
    undos: int = 0
    # Answers other than success (a full store refuses adds): status -> count.
    refused: Counter[int] = field(default_factory=Counter)
    # Bullets written into MEMORY.md by hand, and the contents whose line a hand
    # edit removed or rewrote (those memories may be gone or hold a hand text).
    hand_written: set[str] = field(default_factory=set)
    hand_removed: set[str] = field(default_factory=set)
    hand_saves: int = 0
    # MEMORY.md as the last hand save left it (inode, size, mtime): while the file
    # still has it, that edit is not applied yet.
    last_save: tuple[int, int, int] | None = None
    pending_at_kill: int = 0
    pending_at_restart: int = 0
    cli_runs: int = 0

    def refuse(self, status: int, *contents: str) -> None:
        """An answer that is not a success: nothing was written."""
        self.refused[status] += 1
        self.pending_adds.difference_update(contents)

    def content(self, kind: str) -> str:
        """New text for a write, with its unique word last."""
        word = unique_word(next(self.words))
        return f"Chaos {kind} note {word}"


@dataclass
class Totals:
    """The counts the run prints."""

    kills: int = 0
    acknowledged: int = 0
    checked_records: int = 0
    unacknowledged_kept: int = 0
    unacknowledged_dropped: int = 0
    compactions: int = 0
    undos: int = 0
    refused: Counter[int] = field(default_factory=Counter)
    hand_saves: int = 0
    pending_at_kill: int = 0
    pending_at_restart: int = 0
    cli_runs: int = 0
    kept_aside: int = 0


class Server:
    """`assist-memory serve` on a free port over one folder."""

    def __init__(self, data_dir: Path, llm_url: str) -> None:
        self.data_dir = data_dir
        self.llm_url = llm_url
        self.url = ""
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Start the process; return once it says where it listens."""
        log = (self.data_dir.parent / "chaos-server.log").open("ab")
        self.process = await asyncio.create_subprocess_exec(
            str(BIN / "assist-memory"),
            "serve",
            "--port",
            "0",
            "--data-dir",
            str(self.data_dir),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            env={**os.environ, **SERVER_ENV, "LLM_URL": self.llm_url},
        )
        log.close()
        if self.process.stdout is None:  # pragma: no cover - PIPE was asked for
            raise RuntimeError("no stdout")
        async with asyncio.timeout(60):
            while True:
                line = (await self.process.stdout.readline()).decode()
                if not line:
                    raise RuntimeError("the server exited before serving (see log)")
                if match := _SERVING.search(line):
                    self.url = match.group(1)
                    return

    @property
    def headers(self) -> dict[str, str]:
        """The headers with the server's token."""
        token = (self.data_dir / "token").read_text(encoding="utf-8").strip()
        return {"Authorization": f"Bearer {token}"}

    async def kill(self) -> None:
        """SIGKILL, and wait for the process to be gone."""
        if self.process is None:
            return
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()


class CompactionModel:
    """The stand-in chat model (tests/support/compaction_llm.py) as a process."""

    def __init__(self) -> None:
        self.process: asyncio.subprocess.Process | None = None
        self.url = ""

    async def start(self) -> None:
        """Start it on a free port; return once it answers."""
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        self.process = await asyncio.create_subprocess_exec(
            sys.executable,
            *("-m", "tests.support.compaction_llm", str(port)),
            cwd=ROOT,
            stdin=asyncio.subprocess.DEVNULL,
            # A request cut off by a SIGKILL is a broken pipe there: not worth a trace.
            stderr=asyncio.subprocess.DEVNULL,
        )
        self.url = f"http://127.0.0.1:{port}/v1"
        async with asyncio.timeout(30):
            while True:
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    await asyncio.sleep(0.05)
                else:
                    writer.close()
                    return

    async def stop(self) -> None:
        """SIGTERM, and wait."""
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            await self.process.wait()


async def write_forever(
    http: aiohttp.ClientSession, ledger: Ledger, rng: random.Random
) -> None:
    """One client: mixed writes until the server dies under it."""
    while True:
        live = [i for i in ledger.present if i not in ledger.pending_deletes]
        roll = rng.random()
        if len(live) > TARGET_SIZE and roll < 0.4:
            await delete(http, ledger, rng.choice(live))
        elif live and roll < 0.4:
            await update(http, ledger, rng.choice(live))
        elif roll < 0.5:
            await import_two(http, ledger)
        elif roll < 0.56:
            await compact(http, ledger, rng)
        else:
            await add(http, ledger)


async def add(http: aiohttp.ClientSession, ledger: Ledger) -> None:
    """Add a memory; known by id once acknowledged."""
    content = ledger.content("added")
    ledger.pending_adds.add(content)
    async with http.post("/memory/long-term", json={"content": content}) as answer:
        if answer.status != 201:
            ledger.refuse(answer.status, content)
            return
        memory = await answer.json()
    ledger.pending_adds.discard(content)
    ledger.present[memory["id"]] = [content]
    ledger.acknowledged += 1


async def update(http: aiohttp.ClientSession, ledger: Ledger, memory_id: str) -> None:
    """Give a memory new text."""
    content = ledger.content("updated")
    ledger.present[memory_id].append(content)
    async with http.patch(
        f"/memory/long-term/{memory_id}", json={"content": content}
    ) as answer:
        if answer.status != 200:
            ledger.refused[answer.status] += 1
            return
    # Acknowledged: older contents are gone for good (later writes may follow).
    sent = ledger.present[memory_id]
    ledger.present[memory_id] = sent[sent.index(content) :]
    ledger.acknowledged += 1


async def delete(http: aiohttp.ClientSession, ledger: Ledger, memory_id: str) -> None:
    """Delete a memory."""
    ledger.pending_deletes.add(memory_id)
    async with http.delete(f"/memory/long-term/{memory_id}") as answer:
        if answer.status != 200:
            ledger.refused[answer.status] += 1
            return
    ledger.pending_deletes.discard(memory_id)
    ledger.present.pop(memory_id, None)
    ledger.deleted.add(memory_id)
    ledger.acknowledged += 1


async def import_two(http: aiohttp.ClientSession, ledger: Ledger) -> None:
    """Import two new memories with ids of our own (merge)."""
    records = {}
    for _ in range(2):
        content = ledger.content("imported")
        memory_id = "chaos" + content.rsplit(" ", 1)[1]
        records[memory_id] = content
        # Unknown until acknowledged: may be there or not, never half.
        ledger.pending_adds.add(content)
    document = [{"id": i, "content": c} for i, c in records.items()]
    async with http.post(
        "/memory/import", json={"document": document, "mode": "merge"}
    ) as answer:
        if answer.status != 200:
            ledger.refuse(answer.status, *records.values())
            return
    for memory_id, content in records.items():
        ledger.pending_adds.discard(content)
        ledger.present[memory_id] = [content]
    ledger.acknowledged += 1


async def compact(
    http: aiohttp.ClientSession, ledger: Ledger, rng: random.Random
) -> None:
    """Compact now or when due, or (one time in five) undo the last compaction.

    Every content is unique, so the model keeps every fact: nothing changes in the
    ledger, and the checks after the restart prove the compaction kept each memory's
    id and text (a compaction or undo that loses or revives one fails them).
    """
    roll = rng.random()
    path = (
        "/api/auto-memory/undo"
        if roll < 0.2
        else "/api/auto-memory/compact-if-due"
        if roll < 0.4
        else "/api/auto-memory/compact"
    )
    async with http.post(path, json={}) as answer:
        if answer.status != 200:
            ledger.refused[answer.status] += 1
            return
        done = "message" not in await answer.json()
    if done and path.endswith("undo"):
        ledger.undos += 1
    elif done:
        ledger.compactions += 1
    ledger.acknowledged += 1


class ChaosError(AssertionError):
    """The data after a restart breaks a promise."""


async def check(server: Server, ledger: Ledger, totals: Totals) -> None:
    """Compare the restarted server's data with the ledger, then settle the ledger."""
    async with aiohttp.ClientSession(server.url, headers=server.headers) as http:
        async with http.get("/memory/export") as answer:
            if answer.status != 200:
                raise ChaosError(f"export answered {answer.status}")
            records = (await answer.json())["memories"]
        ids = [r["id"] for r in records]
        if len(ids) != len(set(ids)):
            raise ChaosError("duplicate ids")
        stored = {r["id"]: r["content"] for r in records}
        for memory_id, contents in ledger.present.items():
            # Removed or rewritten by hand: only a line showing this very content.
            by_hand = contents[0] in ledger.hand_removed
            if memory_id not in stored:
                if memory_id not in ledger.pending_deletes and not by_hand:
                    raise ChaosError(
                        f"acknowledged memory {memory_id} is lost (last sent: {contents})"
                    )
            elif stored[memory_id] not in contents and not (
                by_hand and stored[memory_id] in ledger.hand_written
            ):
                raise ChaosError(
                    f"{memory_id} holds {stored[memory_id]!r}, not one of {contents}"
                    " (an acknowledged update reverted, or a write lost)"
                )
        for memory_id, content in stored.items():
            if memory_id in ledger.deleted:
                raise ChaosError(f"deleted memory {memory_id} is back")
            if memory_id not in ledger.present:
                if content in ledger.hand_written:
                    continue  # a bullet written by hand
                if content not in ledger.pending_adds:
                    raise ChaosError(f"{memory_id} holds unknown text {content!r}")
                totals.unacknowledged_kept += 1
        for memory_id, content in stored.items():
            word = content.rsplit(" ", 1)[1]
            async with http.get("/api/memory/search", params={"q": word}) as answer:
                found = [r["id"] for r in (await answer.json())["results"]]
            if found != [memory_id]:
                raise ChaosError(f"search for {word} found {found}, not {memory_id}")
    totals.unacknowledged_dropped += sum(
        1 for c in ledger.pending_adds if c not in stored.values()
    )
    totals.checked_records += len(stored)
    # The stored data is now the truth: the next round starts from it.
    ledger.present = {i: [c] for i, c in stored.items()}
    ledger.pending_adds.clear()
    ledger.pending_deletes.clear()


def memory_md(data_dir: Path) -> Path:
    """The Markdown view of the store, which a person may edit."""
    return data_dir / "prompts" / "memory" / "MEMORY.md"


def hand_edit(text: str, ledger: Ledger, rng: random.Random) -> str:
    """A person's save: a bullet or two added, maybe one of theirs removed or rewritten.

    Only bullets written by hand are removed or rewritten, so every other memory
    must survive the edit whatever the server did meanwhile.
    """
    lines = text.splitlines()
    own = [i for i, line in enumerate(lines) if line[2:] in ledger.hand_written]
    if own and rng.random() < 0.4:
        index = rng.choice(own)
        ledger.hand_removed.add(lines[index][2:])
        if rng.random() < 0.5:
            del lines[index]
        else:
            lines[index] = f"- {ledger.content('hand rewritten')}"
            ledger.hand_written.add(lines[index][2:])
    for _ in range(rng.randint(1, 2)):
        added = ledger.content("hand")
        ledger.hand_written.add(added)
        lines.insert(rng.randint(2, max(2, len(lines))), f"- {added}")
    return "\n".join(lines) + "\n"


async def edit_forever(data_dir: Path, ledger: Ledger, rng: random.Random) -> None:
    """Save MEMORY.md again and again, as an editor does (a new file renamed over it)."""
    path = memory_md(data_dir)
    while True:
        await asyncio.sleep(rng.uniform(*EDIT_PAUSE))
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                continue
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            continue  # being written again this very moment
        if rng.random() < 0.05:
            text = "Just some prose, no list at all.\n"  # kept aside, changes nothing
        else:
            text = hand_edit(text, ledger, rng)
        tmp = path.with_name("editor-save.tmp")
        tmp.write_text(text, encoding="utf-8")
        saved = os.lstat(tmp)
        os.replace(tmp, path)
        ledger.last_save = (saved.st_ino, saved.st_size, saved.st_mtime_ns)
        ledger.hand_saves += 1


async def run_cli(data_dir: Path, ledger: Ledger, rng: random.Random) -> None:
    """The command line on the same folder, once, at a random moment: list or add."""
    await asyncio.sleep(rng.uniform(0, 0.3))
    content = ledger.content("cli added")
    adding = rng.random() < 0.5
    command = ["--json", "add", content] if adding else ["list", "--limit", "5"]
    if adding:
        ledger.pending_adds.add(content)
    process = await asyncio.create_subprocess_exec(
        str(BIN / "assist-memory"),
        *("--data-dir", str(data_dir), *command),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **SERVER_ENV},
    )
    out, err = await process.communicate()
    ledger.cli_runs += 1
    if process.returncode != 0:
        raise ChaosError(f"the command line failed: {err.decode().strip()}")
    if adding:
        memory = json.loads(out)
        ledger.pending_adds.discard(content)
        ledger.present[memory["id"]] = [content]
        ledger.acknowledged += 1


async def one_round(
    server: Server, ledger: Ledger, rng: random.Random, workers: int
) -> None:
    """Writes, hand edits and a CLI run; a SIGKILL at a random moment, a restart."""
    clis: list[asyncio.Task[None]] = []
    async with aiohttp.ClientSession(server.url, headers=server.headers) as http:
        tasks = [
            asyncio.create_task(write_forever(http, ledger, rng))
            for _ in range(workers)
        ]
        editor = asyncio.create_task(edit_forever(server.data_dir, ledger, rng))
        # The command line in every other round: the restart applies the rest.
        if rng.random() < 0.5:
            clis.append(asyncio.create_task(run_cli(server.data_dir, ledger, rng)))
        await asyncio.sleep(rng.uniform(0.05, 0.6))
        await server.kill()
        editor.cancel()
        ledger.pending_at_kill += hand_edit_waits(server.data_dir, ledger)
        results = await asyncio.gather(*tasks, return_exceptions=True)
        with contextlib.suppress(asyncio.CancelledError):
            await editor
        # It may outlive the server: the restart waits for its lock.
        await asyncio.gather(*clis)
    for result in results:
        if not isinstance(result, aiohttp.ClientError | asyncio.TimeoutError):
            raise ChaosError(f"a client failed otherwise: {result!r}")
    ledger.pending_at_restart += hand_edit_waits(server.data_dir, ledger)
    await server.start()


def hand_edit_waits(data_dir: Path, ledger: Ledger) -> bool:
    """True when MEMORY.md is the last hand save still (no engine applied it yet)."""
    try:
        found = os.lstat(memory_md(data_dir))
    except FileNotFoundError:
        return False
    return (found.st_ino, found.st_size, found.st_mtime_ns) == ledger.last_save


async def run(kills: int, workers: int, seed: int, data_dir: Path) -> Totals:
    """Kill the server `kills` times under `workers` writers; ChaosError on a loss."""
    rng = random.Random(seed)
    ledger = Ledger()
    totals = Totals()
    model = CompactionModel()
    await model.start()
    server = Server(data_dir, model.url)
    try:
        await server.start()
        for _ in range(kills):
            before = ledger.acknowledged
            await one_round(server, ledger, rng, workers)
            totals.kills += 1
            totals.acknowledged += ledger.acknowledged - before
            await check(server, ledger, totals)
        totals.refused = ledger.refused
        totals.compactions = ledger.compactions
        totals.undos = ledger.undos
        totals.hand_saves = ledger.hand_saves
        totals.pending_at_kill = ledger.pending_at_kill
        totals.pending_at_restart = ledger.pending_at_restart
        totals.cli_runs = ledger.cli_runs
        totals.kept_aside = len(
            list(memory_md(data_dir).parent.glob("MEMORY.rejected-*.md"))
        )
    finally:
        if server.process is not None and server.process.returncode is None:
            await server.kill()
        await model.stop()
    return totals


def main(argv: list[str] | None = None) -> int:
    """Run from the command line; exit 1 when anything was lost."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=100)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--data-dir", type=Path, default=None)
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    with tempfile.TemporaryDirectory(prefix="assist-memory-chaos-") as folder:
        data_dir = args.data_dir or Path(folder) / "data"
        print(f"chaos: {args.kills} kills, {args.workers} writers, seed {seed}")
        try:
            totals = asyncio.run(run(args.kills, args.workers, seed, data_dir))
        except ChaosError as err:
            print(f"chaos: FAILED: {err}", file=sys.stderr)
            return 1
    print(
        f"chaos: {totals.kills} SIGKILLs, {totals.acknowledged} acknowledged writes, "
        f"0 lost; {totals.checked_records} records checked after restarts "
        f"(ids unique, each found by search); unacknowledged writes: "
        f"{totals.unacknowledged_kept} kept whole, "
        f"{totals.unacknowledged_dropped} absent, 0 half there; "
        f"{totals.compactions} compactions and {totals.undos} undos done (every "
        f"fact kept, ids unchanged); refused answers by status: {dict(totals.refused) or 'none'}; "
        f"{totals.hand_saves} hand saves of MEMORY.md (one not yet applied at "
        f"{totals.pending_at_kill} kills and {totals.pending_at_restart} restarts), "
        f"{totals.kept_aside} kept aside "
        f"unapplied, 0 reverted updates; "
        f"{totals.cli_runs} command line runs on the same folder"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
