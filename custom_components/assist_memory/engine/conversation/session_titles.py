"""A conversation's title and snippet: its first sentences, shortened.

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


def summarize_first_exchange(user_text: str, assistant_text: str) -> tuple[str, str]:
    """A (title, snippet) for a new session's summary when no LLM is available.

    The title is the user's first sentence cut to about 60 characters at a word
    boundary (30 characters for Chinese), without closing punctuation; the snippet is
    the assistant's first sentence cut to about 160 (80 for Chinese). With no user
    text the title falls back to the snippet, then to "Conversation".
    """
    user_sentence = first_sentence(user_text).rstrip(_TRAILING)
    snippet = shorten(
        first_sentence(assistant_text), SNIPPET_LENGTH, CJK_SNIPPET_LENGTH
    )
    title = shorten(user_sentence, TITLE_LENGTH, CJK_TITLE_LENGTH)
    if not title:
        title = shorten(snippet.rstrip(_TRAILING), TITLE_LENGTH, CJK_TITLE_LENGTH)
    return title or DEFAULT_TITLE, snippet
