"""A second look for secrets, from meaning, where a person's words are kept.

The secrets filter (`secrets_filter.py`) knows a secret by its name and its shape, and
misses the kinds it was never shown ("Grandad's bank login number is 55102938"). The
secret head (`worth_keeping.py`) reads each piece of what was said from the local
model's vector instead: where a message is kept (the conversation log, whence what
learning reads, where a memory says it came from and a later prompt's recent turns)
and where a conversation's title is made, each piece the head finds to hold a secret
has its values withheld (digits, codes, numbers said as words), or the whole piece
when it has none (a passphrase of words). A piece the filter already withheld from is
left as it is.

Without the local model nothing changes: the filter alone decides. Nor for a piece
longer than `LONGEST_PIECE` characters, or beyond the first `MOST_PIECES` of a message
with a value or a secret's word (a pasted text, not something said: reading it all
would hold up the message's storing by seconds).
"""

from __future__ import annotations

from typing import Final

from .secrets_filter import REDACTED, redact
from .spoken_values import value_runs

LONGEST_PIECE: Final = 200
MOST_PIECES: Final = 12


def withheld(text: str) -> str:
    """The text with the filter's secrets withheld, then those found by meaning."""
    return withheld_by_meaning(redact(text))


def withheld_by_meaning(text: str) -> str:
    """The text with the values of each piece the secret head flags withheld."""
    # Imported here: the model, its heads and numpy load only where a message is kept.
    from .learned_extraction import pieces
    from .sentences import sentence_spans
    from .worth_keeping import understanding

    found = understanding()
    if found is None or found.secret is None or not text.strip():
        return text
    spans = [
        (start + piece.start, start + piece.end)
        for start, end in sentence_spans(text)
        for piece in pieces(text[start:end])
        if REDACTED not in piece.text and len(piece.text) <= LONGEST_PIECE
    ]
    if not spans:
        return text
    held = found.holding_secrets(
        [text[start:end] for start, end in spans], at_most=MOST_PIECES
    )
    parts: list[str] = []
    at = 0
    for (start, end), secret in zip(spans, held, strict=True):
        if not secret:
            continue
        runs = [r for r in value_runs(text[start:end]) if r.length >= 3]
        cuts = [(start + r.start, start + r.end) for r in runs] or [(start, end)]
        for cut_start, cut_end in cuts:
            parts += [text[at:cut_start], REDACTED]
            at = cut_end
    return "".join([*parts, text[at:]])
