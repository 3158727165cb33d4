"""Putting memories in front of a prompt (seed 004's `build_prompt_with_memory`)."""

from __future__ import annotations

from collections.abc import Iterable
import re
from typing import Final

from .models import Memory

BLOCK_TAG: Final = "long_term_memory"
# Anything that looks like the block's own tags, so memory text cannot close the block.
_TAG_PATTERN: Final = re.compile(r"<\s*/?\s*long_term_memory\s*>", re.IGNORECASE)


def sanitize_memory_text(text: str) -> str:
    """Make memory text safe inside the block: one line, no block tags."""
    one_line = " ".join(text.split())
    # Swap the brackets for look-alike quotation marks: readable, but no longer a tag.
    return _TAG_PATTERN.sub(
        lambda m: m.group(0).replace("<", "\u2039").replace(">", "\u203a"), one_line
    )


def build_prompt_with_memory(memories: Iterable[Memory | str], prompt: str) -> str:
    """Return the prompt with a `<long_term_memory>` block, or the prompt alone.

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
    if not lines:
        return prompt
    body = "\n".join(lines)
    return f"<{BLOCK_TAG}>\n{body}\n</{BLOCK_TAG}>\n\n{prompt}"
