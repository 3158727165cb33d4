"""Whose a learnt fact is: the household's, or the person's who said it.

Learning keeps what a known speaker says in their own scope, except a fact about the
home, which everyone in it should get. A fact is the household's when

- it says so: "our ...", "we ...", the household, 我们/我們/咱们/家里/家裡 (the rules
  write "The household's ...", 用户家……, 用户一家……), or an LLM extractor marked it
  `household` and it does not speak of the user;
- it says nobody's and is about the home: where something is kept ("The boiler is in
  the garage", 电闸在楼梯下面), a member or pet named on their own ("Leo plays
  football on Saturdays"), or the home's shared things (the bins, the wifi, the
  cleaner, the dog, 垃圾, 路由器 ...);
- the speaker put one of the home's things somewhere ("I moved the spare key to the
  shed", 我把充电宝放在书房的抽屉里): the thing is the house's, so the memory is
  written without the speaker ("The spare key was moved to the shed", 充电宝放在书房的抽屉里).

Everything else stays the speaker's: "I ...", "my ..." (their things, preferences,
allergies, schedule), a member named through the speaker ("my son Leo" is written
"The user's son Leo", which would be false for anyone else), and whatever cannot be
placed: private is the safe side.
"""

from __future__ import annotations

from dataclasses import replace
import re
from typing import Final

from .commands import about_the_speaker, about_whom
from .facts import Fact, Whose
from .rule_patterns import _EN_NAMED, _EN_PERSON_SUBJECT, _EN_PETS, _NOT_NAMED

# The home and what its people share: whole words, plural or possessive ("dog's").
_EN_HOME: Final = re.compile(
    r"\b(?:house|home|apartment|kitchen|living\s+room|lounge|bathroom|toilet"
    r"|garage|garden|yard|shed|attic|loft|basement|cellar|hall|hallway|porch|stairs"
    r"|bins?|recycling|rubbish|trash|garbage|compost|wi-?fi|router|internet|boiler"
    r"|heating|thermostat|fuse|fridge|freezer|dishwasher|washing\s+machine|cleaner"
    r"|gardener|window\s+cleaner|landlord|spare\s+key|front\s+door|back\s+door"
    rf"|{_EN_PETS})(?:s|es|['’]s)?\b",
    re.IGNORECASE,
)
_ZH_HOME: Final = re.compile(
    "家|屋|房子|厨房|廚房|客厅|客廳|卫生间|衛生間|浴室|车库|車庫|花园|花園|院子|阳台|陽台"
    "|楼梯|樓梯|垃圾|回收|路由器|wifi|网络|網路|热水器|熱水器|暖气|暖氣|电闸|電閘|保洁|保潔"
    "|钟点工|鐘點工|房东|房東|物业|物業|冰箱|洗衣机|洗衣機|备用钥匙|備用鑰匙|狗|猫|貓",
    re.IGNORECASE,
)
# The speaker put a thing of the home somewhere: "The user moved the spare key to ...".
_EN_PUT: Final = re.compile(
    r"^the\s+user\s+(?P<verb>put|puts|moved|moves|keeps|left|leaves|hid|hides|stored"
    r"|stores|placed|places|hung|hangs|parked|parks|stashed|stashes)\s+"
    r"(?P<thing>the\s+[\w\s'-]+?)\s+(?P<where>(?:in|into|on|onto|under|behind|next\s+to"
    r"|inside|on\s+top\s+of|above|below|beside|back\s+in|back\s+on|to)\b.*)$",
    re.IGNORECASE,
)
_EN_PASSIVE: Final = {
    "put": "was put", "puts": "is put", "moved": "was moved", "moves": "is moved",
    "keeps": "is kept", "left": "was left", "leaves": "is left", "hid": "was hidden",
    "hides": "is hidden", "stored": "was stored", "stores": "is stored",
    "placed": "was placed", "places": "is placed", "hung": "was hung",
    "hangs": "is hung", "parked": "was parked", "parks": "is parked",
    "stashed": "was stashed", "stashes": "is stashed",
}  # fmt: skip
_ZH_PUT: Final = re.compile(
    r"^(?:用户|用戶)(?:把|将|將)(?P<thing>(?!自己|他|她|我|你)[^，。]{1,12}?)"
    r"(?P<where>(?:放|搬|挪|收|藏|挂|掛|停)(?:在|到|进|進)[^，。]+)$"
)


def whose(fact: Fact) -> Whose:
    """Whether a known speaker's fact is the household's or stays theirs (see above)."""
    if about_the_speaker(fact):
        return "household" if _put_by_the_speaker(fact.content) else "speaker"
    if fact.whose is not None:  # an LLM's word, for a fact not about the user
        return fact.whose
    if about_whom(fact.content) == "household" or _about_the_home(fact):
        return "household"
    return "speaker"


def placed(fact: Fact) -> Fact:
    """The fact as learning keeps it: a household fact marked and reworded.

    A household fact (`whose`) is written as the household keeps it
    (`for_the_household`, `whose` "household"); any other keeps the speaker's.
    """
    if whose(fact) == "household":
        return for_the_household(fact)
    # An LLM's "household" for a fact that speaks of the user does not hold.
    return replace(fact, whose="speaker") if fact.whose == "household" else fact


def for_the_household(fact: Fact) -> Fact:
    """The fact as the household keeps it: without the speaker who put a thing away.

    "The user moved the spare key to the shed" -> "The spare key was moved to the
    shed"; 用户把充电宝放在书房的抽屉里 -> 充电宝放在书房的抽屉里. Other facts as they are.
    """
    content = fact.content
    if match := _en_put(content):
        thing = match.group("thing")
        verb = _EN_PASSIVE[match.group("verb").lower()]
        if _plural(thing):
            verb = verb.replace("was ", "were ").replace("is ", "are ")
        content = f"{thing[:1].upper()}{thing[1:]} {verb} {match.group('where')}"
    elif match := _ZH_PUT.match(content):
        content = match.group("thing") + match.group("where")
    return replace(fact, content=content, whose="household")


def _put_by_the_speaker(content: str) -> bool:
    return bool(_en_put(content) or _ZH_PUT.match(content))


def _en_put(content: str) -> re.Match[str] | None:
    """A thing the user put somewhere ("to" only where it was moved: "moved ... to")."""
    match = _EN_PUT.match(content)
    if match is None or not match.group("where").lower().startswith("to "):
        return match
    return match if match.group("verb").lower().startswith("move") else None


def _about_the_home(fact: Fact) -> bool:
    """A fact that names nobody's: about the home, where things are, or someone named."""
    content = fact.content
    # Where something is kept (the rules key it so: "boiler_location", "电闸_location").
    if (fact.key or "").endswith("_location"):
        return True
    if _EN_HOME.search(content) or _ZH_HOME.search(content):
        return True
    return _names_a_member(fact)


def _names_a_member(fact: Fact) -> bool:
    """Someone named on their own: "Leo plays football", "Emma is afraid of the dark".

    A capitalised word before "is" may be anything ("Tea is at four"): a name only
    where the rules saw a person. Kin ("Mum", "Grandpa") are the speaker's.
    """
    named = _EN_NAMED.match(fact.content)
    if named is None:
        return False
    first = named.group("name").split()[0]
    if first.lower() in _NOT_NAMED or _EN_PERSON_SUBJECT.fullmatch(first):
        return False
    return named.group("verb") not in {"is", "has", "was"} or fact.category == "person"


def _plural(thing: str) -> bool:
    last = thing.rsplit(maxsplit=1)[-1].lower()
    return last.endswith("s") and not last.endswith(("ss", "us"))
