"""Learning and answering with a real small LLM (script/bench --real-llm).

    .venv/bin/python script/bench_real_llm.py --model FILE.gguf [--every 4]

The model (Qwen2.5-Coder 0.5B Instruct, Q4_K_M, in llama.cpp:
`tests/support/ollama_llama.py`, greedy, fixed seed, one thread unless
ASSIST_MEMORY_LLM_THREADS says otherwise) is asked as the product asks an Ollama AI
Task: Home Assistant's AI Task system line, then the extraction instructions with the
conversation, answered in the facts' JSON schema. Its facts go through the product's
write-back (`TurnMemory.learn`, grounding included) into an empty store per
statement; an answer with no usable fact falls back to the rules, as learning does.
Figures, with the statements used:

- learning precision and recall on the extraction corpus's test split
  (tests/data/corpus/extraction.json, writers e5 and e6: reported once, never tuned
  on), judged by the corpus's own matching rule; `--every N` takes every Nth test
  item in corpus order (a fixed subset: 800 statements take hours on two cores);
- memories no person said (a kept memory less than half of whose words the statement
  holds: must be 0; each is printed), secrets kept (0);
- answers learnt back: a memory is given in the block, a question asked, the model's
  answer learnt from with the question (must add 0 memories), and answers with
  memories (the answer holds the memory's words);
- tools called when asked: the memory tools offered, the model asked to use one.
"""

from __future__ import annotations

import argparse
from datetime import date, datetime
import json
from pathlib import Path
import re
import sys
import time
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extraction_quality import learning as empty_memory, occurs  # noqa: E402
from secrets_quality import bare  # noqa: E402

from assist_memory_engine.conversation.turn_settings import LearnSettings  # noqa: E402
from assist_memory_engine.conversation.turns import LearnResult, TurnMemory  # noqa: E402
from assist_memory_engine.language.llm_facts import (  # noqa: E402
    FACTS_SCHEMA,
    extraction_instructions,
    parse_llm_facts,
)
from assist_memory_engine.storage.models import Memory  # noqa: E402
from tests.support.ollama_llama import LlamaChat  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "corpus" / "extraction.json"
# The corpus's day: its relative dates count from it (a label's `date`).
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=ZoneInfo("Europe/London"))
# What Home Assistant's Ollama AI Task puts first, as it sends it.
TASK_SYSTEM = (
    "You are a Home Assistant expert and help users with their tasks.\n"
    f"Current time is {NOW:%H:%M:%S}. Today's date is {NOW:%Y-%m-%d}."
)
# Memories given and questions asked about them (answers learnt back).
GIVEN = [
    (
        "The spare key is under the blue flowerpot",
        "Where is the spare key?",
        "flowerpot",
    ),
    ("The bins go out on Tuesday night", "When do the bins go out?", "tuesday"),
    ("Tom is allergic to peanuts", "Is anyone allergic to anything?", "peanut"),
    ("备用钥匙在蓝色花盆下面", "备用钥匙在哪里？", "花盆"),
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "append_memory",
            "description": "Store a fact in long-term memory.",
            "parameters": {
                "type": "object",
                "properties": {"fact": {"type": "string"}},
                "required": ["fact"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "search_memory",
            "description": "Search long-term memory.",
            "parameters": {
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
            },
        },
    },
]
ASKED = [
    (
        "Use append_memory to remember that the recycling goes out on Thursdays.",
        "append_memory",
    ),
    ("Search your memory with search_memory for the spare key.", "search_memory"),
    ("用 append_memory 记住：我女儿每周三学钢琴。", "append_memory"),
    ("用 search_memory 搜索一下备用钥匙。", "search_memory"),
]
# Words every fact may have that a statement need not say.
SUBJECT_WORDS = {"the", "user", "s", "household", "用", "户", "戶"}


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+|[\u3400-\u9fff]", text.casefold()))


def every(items: list[dict[str, Any]], step: int) -> list[dict[str, Any]]:
    """Every `step`th item in corpus order, from the first (a fixed subset)."""
    return items[:: max(step, 1)]


def _ask(chat: LlamaChat, prompt: str, schema: object | None) -> str:
    return chat.answer(
        [
            {"role": "system", "content": TASK_SYSTEM},
            {"role": "user", "content": prompt},
        ],
        None,
        schema,
    ).content


def _learn(
    chat: LlamaChat, turns: TurnMemory, session: str
) -> tuple[LearnResult, bool]:
    """Learn from the session as the product does with an AI Task, at its end.

    Also whether the LLM's answer gave a usable fact (else the rules ran).
    """
    batch = turns.extraction_batch(session, LearnSettings(), ended=True)
    if batch is None:
        return LearnResult(), False
    asked = f"{extraction_instructions(NOW)}\nConversation:\n{batch.transcript}"
    facts = parse_llm_facts(_ask(chat, asked, FACTS_SCHEMA))
    used = bool(facts)
    if not facts:
        facts = turns.rule_facts(batch)
    settings = LearnSettings()
    return turns.learn(batch, facts, scope="u", settings=settings), used


def carries(memory: Memory, day: str) -> bool:
    """Whether a memory carries a label's date (YYYY-MM-DD or YYYY-MM) in its words or end."""
    if memory.expires_at and memory.expires_at.startswith(day):
        return True
    text = memory.content.casefold()
    if day in text:
        return True
    parts = [int(p) for p in day.split("-")]
    month = date(parts[0], parts[1], 1).strftime("%B").casefold()
    if len(parts) == 2:
        return f"{month} {parts[0]}" in text or f"{parts[0]}年{parts[1]}月" in text
    forms = (f"{parts[2]} {month}", f"{month} {parts[2]}", f"{parts[1]}月{parts[2]}")
    return any(form in text for form in forms)


def matches(memory: Memory, label: dict[str, Any]) -> bool:
    """The corpus's matching rule: every required term, no forbidden one (a date excuses)."""
    dated = label.get("date") and carries(memory, label["date"])
    return all(
        occurs(term, memory.content) or dated for term in label["require"]
    ) and not any(
        occurs(term, memory.content, whole_word=True) for term in label["forbid"]
    )


def judge(memories: list[Memory], labels: list[dict[str, Any]]) -> tuple[int, int]:
    """Memories matching a label, and labels matched (each by at most one memory)."""
    free = list(range(len(labels)))
    correct = 0
    for memory in memories:
        hit = next((i for i in free if matches(memory, labels[i])), None)
        if hit is not None:
            free.remove(hit)
            correct += 1
    return correct, len(labels) - len(free)


def learning(chat: LlamaChat, items: list[dict[str, Any]]) -> None:
    """Precision, recall, memories nobody said, secrets kept."""
    kept_total = correct = wanted = found = secrets = 0
    not_said: list[tuple[str, str]] = []
    dropped_not_said = dropped_said_back = llm_used = 0
    started = time.monotonic()
    for number, item in enumerate(items):
        with empty_memory() as turns:
            turns.begin(session_id=f"s{number}", text=item["say"], user_id="u")
            result, used = _learn(chat, turns, f"s{number}")
            memories = turns.engine.store.get_all()
        llm_used += used
        dropped_not_said += result.not_said
        dropped_said_back += result.said_back
        said = _words(item["say"])
        for memory in memories:
            kept_total += 1
            words = _words(memory.content) - SUBJECT_WORDS
            if len(words & said) * 2 < len(words):
                not_said.append((item["id"], memory.content))
            if any(bare(s) in bare(memory.content) for s in item.get("secrets", [])):
                secrets += 1
        hits, matched = judge(memories, item.get("keep", []))
        correct += hits
        found += matched
        wanted += len(item.get("keep", []))
        if (number + 1) % 10 == 0:
            print(
                f"  ... {number + 1}/{len(items)} ({time.monotonic() - started:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    elapsed = time.monotonic() - started
    print(f"learning with the LLM on {len(items)} statements ({elapsed:.0f} s):")
    print(f"  the LLM gave a usable fact for {llm_used}; the rules ran for the others")
    print(
        f"  precision {correct}/{kept_total} ({correct / max(kept_total, 1):.3f}),"
        f" recall {found}/{wanted} ({found / max(wanted, 1):.3f})"
    )
    print(
        f"  memories no person said: {len(not_said)}"
        f" (the LLM's facts dropped by grounding: {dropped_not_said},"
        f" said back: {dropped_said_back})"
    )
    for identifier, content in not_said:
        print(f"    {identifier}: {content}")
    print(f"  secrets kept: {secrets}")


def answers(chat: LlamaChat) -> None:
    """Answers with memories, and answers learnt back."""
    with_memory = learnt_back = 0
    for number, (memory, question, word) in enumerate(GIVEN):
        with empty_memory() as turns:
            turns.engine.store.add(memory, scope="household")
            context = turns.begin(session_id=f"a{number}", text=question, user_id="u")
            system = f"You are a voice assistant in a home.\n{context.memory_block}"
            reply = chat.answer(
                [
                    {"role": "system", "content": system},
                    {"role": "user", "content": question},
                ],
                None,
                None,
            ).content
            with_memory += word in reply.casefold()
            turns.end(
                session_id=f"a{number}", user_text=question, reply=reply, user_id="u"
            )
            learnt_back += _learn(chat, turns, f"a{number}")[0].added
    print(f"answers with memories: {with_memory}/{len(GIVEN)}")
    print(f"answers learnt back: {learnt_back} (of {len(GIVEN)} answers)")


def tools(chat: LlamaChat) -> None:
    """Tools called when asked."""
    called = 0
    for text, tool in ASKED:
        answer = chat.answer([{"role": "user", "content": text}], TOOLS, None)
        called += any(c["function"]["name"] == tool for c in answer.tool_calls)
    print(f"tools called when asked: {called}/{len(ASKED)}")


def main() -> None:
    """Run the sections with the model given."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument(
        "--every", type=int, default=4, help="every Nth test item (1: all 800)"
    )
    parser.add_argument(
        "--learning-only",
        action="store_true",
        help="only learning on the corpus (not the answers and the tools)",
    )
    args = parser.parse_args()
    chat = LlamaChat(args.model)
    print(
        f"model: {chat.metadata.get('general.name')} ({args.model.name}),"
        f" greedy, seed fixed, {chat.threads} thread(s)"
    )
    if not args.learning_only:
        answers(chat)
        tools(chat)
    if CORPUS.exists():
        corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
        test = [i for i in corpus["items"] if i.get("split") == "test"]
        chosen = every(test, args.every)
        print(
            f"extraction corpus test split (writers e5, e6; reported once):"
            f" {len(test)} items, every {max(args.every, 1)}th: {len(chosen)} used"
        )
        learning(chat, chosen)
    else:
        print(f"{CORPUS.relative_to(ROOT)} is not here: no learning figures")


if __name__ == "__main__":
    main()
