"""Learning and answering with a real small LLM (script/bench --real-llm).

    .venv/bin/python script/bench_real_llm.py --model FILE.gguf [--limit 60]

The model (Qwen2.5 0.5B instruct, Q4_K_M, in llama.cpp: `tests/support/ollama_llama.py`,
greedy, fixed seed) is asked as the product asks an AI Task: the extraction
instructions with the conversation, answered in the facts' JSON schema. Its facts
go through the product's write-back (`TurnMemory.learn`, grounding included) into an
empty store per statement. Figures, with the size used:

- learning precision and recall on the extraction corpus's test split
  (tests/data/corpus/extraction.json: items with `say`, `lang`, `split`, `keep`:
  [{kind, scope, require[], forbid[]}], `secrets`), a stratified subset by language
  when --limit is smaller than the split;
- memories no person said (kept memories most of whose words the statement lacks:
  must be 0), secrets kept (0);
- answers learnt back: a memory is given in the block, a question asked, the model's
  answer learnt from with the question (must add 0 memories), and answers with
  memories (the answer holds the memory's words);
- tools called when asked: the memory tools offered, the model asked to use one.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from datetime import datetime
import json
from pathlib import Path
import re
import sys
from typing import Any
from zoneinfo import ZoneInfo

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from extraction_quality import learning as empty_memory  # noqa: E402

from assist_memory_engine.conversation.turn_settings import LearnSettings  # noqa: E402
from assist_memory_engine.conversation.turns import LearnResult, TurnMemory  # noqa: E402
from assist_memory_engine.language.llm_facts import (  # noqa: E402
    FACTS_SCHEMA,
    extraction_instructions,
    parse_llm_facts,
)
from tests.support.ollama_llama import LlamaChat  # noqa: E402

CORPUS = ROOT / "tests" / "data" / "corpus" / "extraction.json"
NOW = datetime(2026, 12, 3, 9, 0, tzinfo=ZoneInfo("Europe/London"))
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
                "properties": {"content": {"type": "string"}},
                "required": ["content"],
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


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+|[\u4e00-\u9fff]", text.casefold()))


def stratified(items: list[dict[str, Any]], limit: int) -> list[dict[str, Any]]:
    """At most `limit` items, the same share of each language, in corpus order."""
    by_language: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_language[item.get("lang", "en")].append(item)
    if len(items) <= limit:
        return items
    chosen: list[dict[str, Any]] = []
    for group in by_language.values():
        share = max(1, round(limit * len(group) / len(items)))
        step = len(group) / share
        chosen += [group[int(i * step)] for i in range(share)]
    return chosen[:limit]


def _learn(chat: LlamaChat, turns: TurnMemory, session: str) -> LearnResult:
    """Learn from the session as the product does with an AI Task, at its end."""
    batch = turns.extraction_batch(session, LearnSettings(), ended=True)
    if batch is None:
        return LearnResult()
    asked = f"{extraction_instructions(NOW)}\nConversation:\n{batch.transcript}"
    answer = chat.answer([{"role": "user", "content": asked}], None, FACTS_SCHEMA)
    facts = parse_llm_facts(answer.content)
    return turns.learn(batch, facts, scope="u", settings=LearnSettings())


def learning(chat: LlamaChat, items: list[dict[str, Any]]) -> None:
    """Precision, recall, memories nobody said, secrets kept."""
    kept_total = matched = wanted = found = not_said = secrets = 0
    dropped_not_said = 0
    for number, item in enumerate(items):
        with empty_memory() as turns:
            turns.begin(session_id=f"s{number}", text=item["say"], user_id="u")
            result = _learn(chat, turns, f"s{number}")
            dropped_not_said += result.not_said
            memories = [m.content for m in turns.engine.store.get_all()]
        said = _words(item["say"])
        for content in memories:
            kept_total += 1
            words = _words(content) - {"the", "user", "s", "household", "用", "户"}
            if len(words & said) * 2 < len(words):
                not_said += 1
            if any(s.casefold() in content.casefold() for s in item.get("secrets", [])):
                secrets += 1
            if any(_matches(content, keep) for keep in item.get("keep", [])):
                matched += 1
        for keep in item.get("keep", []):
            wanted += 1
            found += any(_matches(content, keep) for content in memories)
    print(f"learning with the LLM on {len(items)} statements:")
    print(
        f"  precision {matched}/{kept_total} ({matched / max(kept_total, 1):.3f}),"
        f" recall {found}/{wanted} ({found / max(wanted, 1):.3f})"
    )
    print(
        f"  memories no person said: {not_said} (dropped by grounding: {dropped_not_said})"
    )
    print(f"  secrets kept: {secrets}")


def _matches(content: str, keep: dict[str, Any]) -> bool:
    text = content.casefold()
    return all(w.casefold() in text for w in keep.get("require", [])) and not any(
        w.casefold() in text for w in keep.get("forbid", [])
    )


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
            learnt_back += _learn(chat, turns, f"a{number}").added
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
    parser.add_argument("--limit", type=int, default=60)
    args = parser.parse_args()
    chat = LlamaChat(args.model)
    print(
        f"model: {chat.metadata.get('general.name')} ({args.model.name}), greedy, seed fixed"
    )
    if CORPUS.exists():
        corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
        items = corpus["items"] if isinstance(corpus, dict) else corpus
        test = [i for i in items if i.get("split") == "test"]
        chosen = stratified(test, args.limit)
        print(f"extraction corpus test split: {len(test)} items, {len(chosen)} used")
        learning(chat, chosen)
    else:
        print(f"{CORPUS.relative_to(ROOT)} is not here: no learning figures")
    answers(chat)
    tools(chat)


if __name__ == "__main__":
    main()
