"""Putting memories in front of a prompt (`build_prompt_with_memory`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from ..storage.models import Memory
from .compose import neutralize, without_controls

BLOCK_TAG: Final = "long_term_memory"


def sanitize_memory_text(text: str) -> str:
    """Make memory text safe inside the block (as the memory block does, uncapped).

    One line without control characters; brackets swapped for look-alike quotation
    marks (readable, but no tag can close the block); no header or role marker at
    its start; otherwise the memory's exact text.
    """
    return neutralize(text, limit=None)


def build_prompt_with_memory(memories: Iterable[Memory | str], prompt: str) -> str:
    """Return the prompt with a `<long_term_memory>` block, or the prompt alone.

    Control characters are left out of both (whitespace stays in the prompt).

    >>> print(build_prompt_with_memory(["likes tea"], "hi"))
    <long_term_memory>
    - likes tea
    </long_term_memory>
    <BLANKLINE>
    hi
    """
    lines = [
        f"- {sanitize_memory_text(m.content if isinstance(m, Memory) else m)}"
        for m in memories
    ]
    prompt = without_controls(prompt)
    if not lines:
        return prompt
    body = "\n".join(lines)
    return f"<{BLOCK_TAG}>\n{body}\n</{BLOCK_TAG}>\n\n{prompt}"
