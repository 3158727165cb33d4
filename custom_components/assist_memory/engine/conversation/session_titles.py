"""A conversation's title and snippet: what was said first, shortened.

Both carry what the person said and what was done, never an assistant's unchecked
wording: an LLM's reply may be wrong ("The wifi switch is in the kitchen"), and a
summary reaches later prompts ("Recent Conversations"), where it would be read as
what happened. The title is the user's first sentence; the snippet the rest of their
first message, or, for a memory sentence the memory agent carried out ("remember
that ..."), its own answer, which says what was done.

Chinese and Japanese have no spaces and say more per character: they are cut shorter.
"""

from __future__ import annotations

import re
from typing import Final

TITLE_LENGTH: Final = 60
SNIPPET_LENGTH: Final = 160
# Chinese and Japanese have no spaces and say more per character: cut shorter.
CJK_TITLE_LENGTH: Final = 30
CJK_SNIPPET_LENGTH: Final = 80
DEFAULT_TITLE: Final = "Conversation"


# -- summaries without an LLM ---------------------------------------------------------

_CJK: Final = re.compile(
    "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)
# A sentence ends at CJK end punctuation, a line break, or . ! ? before a space or the
# end (so "3.5" and "example.com" do not end one).
_SENTENCE_END: Final = re.compile(r"[。！？!?]+|\n|[.!?]+(?=\s|$)")
_TRAILING: Final = ".。!！;；,，:：、 "


def first_sentence(text: str) -> str:
    """The first sentence of `text`, with its whitespace tidied."""
    text = text.strip()
    match = _SENTENCE_END.search(text)
    sentence = text[: match.end()] if match else text
    return " ".join(sentence.split())


def _after_first(text: str) -> str:
    """What `text` says after its first sentence."""
    text = text.strip()
    match = _SENTENCE_END.search(text)
    return text[match.end() :] if match else ""


def is_cjk_text(text: str) -> bool:
    """True when at least half of the text's non-space characters are CJK."""
    letters = sum(1 for char in text if not char.isspace())
    return letters > 0 and 2 * len(_CJK.findall(text)) >= letters


def shorten(text: str, limit: int, cjk_limit: int) -> str:
    """Cut `text` to about `limit` characters at a word boundary, adding "…".

    Text that is mostly Chinese or Japanese has no spaces: it is cut at `cjk_limit`
    characters instead.
    """
    if is_cjk_text(text):
        limit = cjk_limit
        if len(text) <= limit:
            return text
        return text[:limit].rstrip(_TRAILING) + "…"
    if len(text) <= limit:
        return text
    cut = text[: limit + 1].rfind(" ")
    head = text[:cut] if cut > limit // 2 else text[:limit]
    return head.rstrip(_TRAILING) + "…"


def summarize_first_exchange(user_text: str, done: str | None) -> tuple[str, str]:
    """A (title, snippet) for a new session's summary.

    The title is the user's first sentence cut to about 60 characters at a word
    boundary (30 characters for Chinese), without closing punctuation. The snippet is
    the first sentence of `done` (what the memory agent did, in its own words), else
    the rest of the user's first message, cut to about 160 (80 for Chinese); "" when
    there is none. An assistant's reply is never given as `done`. With no user text
    the title falls back to the snippet, then to "Conversation".
    """
    user_sentence = first_sentence(user_text).rstrip(_TRAILING)
    said = first_sentence(done) if done else first_sentence(_after_first(user_text))
    snippet = shorten(said, SNIPPET_LENGTH, CJK_SNIPPET_LENGTH)
    title = shorten(user_sentence, TITLE_LENGTH, CJK_TITLE_LENGTH)
    if not title:
        title = shorten(snippet.rstrip(_TRAILING), TITLE_LENGTH, CJK_TITLE_LENGTH)
    return title or DEFAULT_TITLE, snippet
