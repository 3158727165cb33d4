"""The extraction rules for English statements: drafts of facts (content, category, key)."""

from __future__ import annotations

import re

from .fact_keys import _join_key, _singular, _subject_key, _topic_key
from .rule_patterns import (
    _CONTEXT_PRONOUN,
    _EN_ABOUT_ME,
    _EN_AGE,
    _EN_ALLERGY,
    _EN_ALLERGY_HAVE,
    _EN_AVOID,
    _EN_CALL_ME,
    _EN_CLOCK_TIME,
    _EN_DIET,
    _EN_EVENT_SUBJECT,
    _EN_EVERY_FIRST,
    _EN_EVERY_LATER,
    _EN_HABIT,
    _EN_HAVE,
    _EN_HAVE_COUNT,
    _EN_IS_MY,
    _EN_KEEP_IN,
    _EN_LIKE,
    _EN_LIVE,
    _EN_LOCATION,
    _EN_MEMBER,
    _EN_MY_THING_HOW,
    _EN_NAME,
    _EN_NAMED,
    _EN_NAMED_WEEKDAYS,
    _EN_NOT_ABOUT_ME,
    _EN_NOT_OBJECT,
    _EN_NOT_ROUTINE,
    _EN_NOT_SCHEDULED,
    _EN_NOT_STATED,
    _EN_NOT_WHAT,
    _EN_OTHER_ALLERGY,
    _EN_OTHER_LIKE,
    _EN_OTHER_POSSESSIVE,
    _EN_PERSON_HEAD,
    _EN_PET_NAME,
    _EN_POSSESSIVE,
    _EN_RATHER,
    _EN_REMEMBER_TO,
    _EN_SCHEDULED_THING,
    _EN_TAKE_WITH,
    _EN_TRANSPORT,
    _EN_WH_START,
    _EN_WHEN,
    _EN_WORK,
    _EVENT_CUES,
    _NOT_NAMED,
    _NOT_NAMES,
    _NOT_PLACES,
    _NOT_WHO,
    _ROUTINE_CUES,
    _TIME_CUES,
    _TRANSIENT,
    _X_STOP,
    _cue_category,
    _cut_en,
    _Draft,
    _meaningful,
    _recurs,
    _subject_category,
)
from .third_person import (
    _EN_AUX,
    _EN_SUBJECT,
    _OTHER_REST,
    _SELF_REST,
    _capitalize,
    _en_pronouns,
    _en_third_person,
    _third_person_verb,
)


def _en_remembered(text: str) -> list[_Draft]:
    if task := _EN_REMEMBER_TO.match(text):
        content = "The user wants to remember to " + _en_pronouns(
            task.group("task"), _SELF_REST
        )
        return [(content, "note", None)]
    if _EN_WH_START.match(text) or len(text.split()) < 3:
        return []
    return [(_en_third_person(text), _cue_category(text), None)]


def _english(text: str, *, explicit: bool) -> list[_Draft]:
    if (match := _EN_NAME.match(text)) and _name_ok(match.group("name")):
        return [(f"The user's name is {match.group('name')}", "person", "user_name")]
    if match := _EN_CALL_ME.match(text):
        name = match.group("name")
        if _name_ok(name) and len(name.split()) <= 3:
            return [(f"The user wants to be called {name}", "person", "user_name")]
        return []
    if match := _EN_ALLERGY.match(text):
        x = _cut_en(match.group("x"))
        if not _meaningful(x):
            return []
        negation = "not " if match.group("neg") else ""
        content = f"The user is {negation}{match.group('degree')}allergic to {_en_pronouns(x, _SELF_REST)}"
        return [(content, "fact", _join_key("user_allergy", _topic_key(x)))]
    if match := _EN_ALLERGY_HAVE.match(text):
        x = match.group("to") or match.group("x")
        if not _meaningful(x):
            return []
        return [
            (_en_third_person(text), "fact", _join_key("user_allergy", _topic_key(x)))
        ]
    if drafts := _en_location(text):
        return drafts
    if drafts := _en_possessive(text, explicit=explicit):
        return drafts
    if drafts := _en_preference(text):
        return drafts
    if match := _EN_LIKE.match(text):
        return _en_like(match)
    if drafts := _en_other(text):
        return drafts
    return _en_facts(text) or _en_member(text) or _en_scheduled(text)


def _en_scheduled(text: str) -> list[_Draft]:
    """When things happen: "The cleaner comes every other Friday", "... is at 2"."""
    match = _EN_SCHEDULED_THING.match(text)
    if match is None or _EN_NOT_SCHEDULED.match(match.group("x")):
        return []
    if _recurs(text):
        category = "routine"
    elif _EVENT_CUES.search(text) or re.search(r"\bat\s+\d", text):
        category = "event"
    else:
        return []
    return [(_capitalize(_en_pronouns(text, _OTHER_REST)), category, None)]


def _en_location(text: str) -> list[_Draft]:
    """Where things are kept: "The torch is in the top drawer", "I keep X in Y"."""
    if match := _EN_PET_NAME.match(text):
        pet = match.group("pet").lower()
        content = f"The household's {pet}'s name is {match.group('name')}"
        return [(content, "fact", _join_key("household", pet, "name"))]
    if match := _EN_KEEP_IN.match(text):
        content = _en_third_person(text)
    elif match := _EN_LOCATION.match(text):
        said = _en_pronouns(text[match.start("x") :], _OTHER_REST)
        if owner := (match.group("owner") or "").strip().lower():
            label = {"the": "The", "my": "The user's", "our": "The household's"}[owner]
            content = f"{label} {said}"
        else:
            content = _capitalize(said)  # "Birthday candles are in ..."
    else:
        return []
    x, y = match.group("x"), match.group("y")
    head = x.split()[-1].replace("'s", "")
    if _EN_PERSON_HEAD.match(head) or _NOT_PLACES.match(y):
        return []  # "The kids are in the garden": where someone is now
    if _EN_EVENT_SUBJECT.search(head) or _EVENT_CUES.search(y):
        return []  # "my birthday is on the 2nd of July": a date, not a place
    return [(content, "fact", _join_key(_topic_key(x, limit=3), "location"))]


def _en_preference(text: str) -> list[_Draft]:
    """Preferences said another way: "I'd rather ...", "I take my coffee with ..."."""
    if match := _EN_RATHER.match(text):
        x = _cut_en(match.group("x"))
        if not _meaningful(x):
            return []
        verb = match.group("verb").lower()
        content = f"The user would {verb} {_en_pronouns(x, _SELF_REST)}"
        return [(content, "preference", _join_key("user", _topic_key(x)))]
    if match := _EN_TAKE_WITH.match(text):
        owner = "user" if match.group("subj").lower() == "i" else "household"
        if _TIME_CUES.search(match.group("how")):
            return [(_en_third_person(text), "routine", None)]
        key = _join_key(owner, _topic_key(match.group("x")))
        return [(_en_third_person(text), "preference", key)]
    return []


def _en_member(text: str) -> list[_Draft]:
    """Others in the household: "My son Leo plays football", "Emma is afraid of ..."."""
    if match := _EN_MEMBER.match(text):
        owner = match.group("owner").lower()
        label = "The user's" if owner == "my" else "The household's"
        who = text[match.start("rel") : match.start("rest")].strip()
        who_key = _join_key(
            "user" if owner == "my" else "household",
            _subject_key(match.group("rel")),
        )
        who_text = f"{label} {who}"
    elif match := _EN_NAMED.match(text):
        who_text = match.group("name")
        if (
            who_text.split()[0].lower() in _NOT_NAMED
            or "'" in text[match.end("name") :]
        ):
            return []
        who_key = _subject_key(who_text)
    else:
        return []
    rest = match.group("rest")
    words = rest.lower().split()
    if (
        words[0] in _EN_NOT_STATED
        or _EN_NOT_OBJECT.match(" ".join(words[1:]))
        or (
            words[0] in ("is", "are", "was", "'s")
            and len(words) > 1
            and (
                words[1] in _TRANSIENT
                or (words[1].endswith("ing") and words[1] != "coming")
            )
        )
    ):
        return []
    if re.search(r"[\"“”‘]|:", rest):
        return []  # a quote
    content = f"{who_text} {_en_pronouns(rest, _OTHER_REST)}"
    category = _cue_category(rest)
    if category == "fact":
        category = "person"
    key = None
    if re.match(r"^lives\s+(?:in|at|near)\b", rest):
        key = _join_key(who_key or "", "residence")
    return [(content, category, key)]


def _name_ok(name: str) -> bool:
    words = name.lower().split()
    return bool(words) and words[0] not in _NOT_NAMES and len(words) <= 4


def _en_possessive(text: str, *, explicit: bool) -> list[_Draft]:
    # "my sister's called Rachel": "is called".
    text = re.sub(
        r"^((?:my|our)\s+[\w-]+)'s\s+(called|named)\b",
        r"\1 is \2",
        text,
        flags=re.IGNORECASE,
    )
    if match := _EN_POSSESSIVE.match(text):
        owner = match.group("owner").lower()
        prefix, label = (
            ("user", "The user's")
            if owner == "my"
            else ("household", "The household's")
        )
        x, y = match.group("x"), match.group("y")
        subject_text = x
        who_key = prefix
        rendered_y = _en_pronouns(y, _SELF_REST)
        content = f"{label} {x} {match.group('verb').lower()} {rendered_y}"
    elif match := _EN_OTHER_POSSESSIVE.match(text):
        who = match.group("who")
        if who.lower() in _NOT_WHO or who.lower().split()[0] in ("the", "a", "an"):
            return []
        x, y = match.group("x"), match.group("y")
        subject_text = x
        who_key = _subject_key(who)
        content = (
            f"{who}'s {x} {match.group('verb').lower()} {_en_pronouns(y, _OTHER_REST)}"
        )
    else:
        return []
    x_words = x.lower().replace("'s", "").split()
    if x.lower().endswith("'s") or any(word in _X_STOP for word in x_words):
        return []  # "my wife's is ramen" says nothing on its own
    category = _subject_category(subject_text)
    if category == "fact" and _ROUTINE_CUES.search(y):
        category = "routine"  # "Leo's football is on Sundays"
    elif category == "fact" and _EVENT_CUES.search(y):
        category = "event"  # "my piano lesson is on Friday"
    y_first = y.split()[0].lower()
    if (
        not explicit
        and category in ("fact", "person")
        and (y_first in _TRANSIENT or y_first.endswith("ing"))
    ):
        # "my phone is dead", "my head is killing me": a state, not a fact.
        return []
    # "my car is a blue Golf" and later "my car is a red Tesla": the same subject, so
    # the newer description replaces the older one.
    key = _join_key(who_key, _subject_key(subject_text))
    if re.match(r"^(?:called|named)\b", y, re.IGNORECASE):
        key = _join_key(key or "", "name")
    return [(content, category, key)]


def _en_like(match: re.Match[str]) -> list[_Draft]:
    x = _cut_en(match.group("x"))
    if _EN_NOT_OBJECT.match(x) or not _meaningful(x):
        return []
    subject = match.group("subj").lower()
    if partner := match.group("partner"):
        # Plural subject: the verb stays as it is.
        verb_phrase = f"{match.group('pre')}{match.group('verb')}"
        content = (
            f"The user and their {partner} {verb_phrase} {_en_pronouns(x, _SELF_REST)}"
        )
        return [(content, "preference", _join_key("household", _topic_key(x)))]
    verb_phrase = _conjugate_phrase(match.group("pre"), match.group("verb"))
    label, owner = (
        ("The user", "user") if subject == "i" else ("The household", "household")
    )
    content = f"{label} {verb_phrase} {_en_pronouns(x, _SELF_REST)}"
    if how := _EN_MY_THING_HOW.match(x):
        # "I like my coffee black", later "... with milk": the same coffee
        return [(content, "preference", _join_key(owner, _topic_key(how.group("x"))))]
    return [(content, "preference", _join_key(owner, _topic_key(x)))]


def _conjugate_phrase(pre: str, verb: str) -> str:
    """Conjugate: "really don't" + "like" -> "really doesn't like"; "prefer" -> "prefers"."""
    words = pre.split()
    for index, word in enumerate(words):
        low = word.lower()
        if low in ("do", "don't"):
            words[index] = _EN_AUX[low]
            return " ".join([*words, verb])
    verb = re.sub(r"\s+", " ", verb)
    if not verb.lower().startswith(("can", "cannot")):
        verb = _third_person_verb(verb)
    return " ".join([*words, verb])


def _en_other(text: str) -> list[_Draft]:
    """Likes and allergies of someone else: "Anna likes her coffee black"."""
    match = _EN_OTHER_LIKE.match(text) or _EN_OTHER_ALLERGY.match(text)
    if match is None:
        return []
    who = match.group("who")
    if who.lower() in _NOT_WHO:
        return []
    x = _cut_en(match.group("x"))
    if _EN_NOT_OBJECT.match(x) or not _meaningful(x):
        return []
    if who.lower().startswith(("my ", "our ")):
        owner, rest = who.split(" ", 1)
        label = "The user's" if owner.lower() == "my" else "The household's"
        who_text = f"{label} {rest}"
        who_key = _join_key(
            "user" if owner.lower() == "my" else "household", _subject_key(rest)
        )
    else:
        who_text = who
        who_key = _subject_key(who)
    body = text[match.end("who") : match.start("x")].strip()
    content = f"{who_text} {body} {_en_pronouns(x, _OTHER_REST)}"
    if "verb" in match.re.groupindex:
        return [(content, "preference", _join_key(who_key or "", _topic_key(x)))]
    return [(content, "fact", _join_key(who_key or "", "allergy", _topic_key(x)))]


def _en_facts(text: str) -> list[_Draft]:
    if diet := _EN_DIET.match(text):
        kind = re.sub(r"[\s-]+", "_", diet.group("diet").lower())
        key = (
            "user_diet"
            if kind in ("vegetarian", "vegan", "pescatarian", "halal", "kosher")
            else f"user_{kind}"
        )
        return [(_en_third_person(text), "fact", key)]
    if (match := _EN_AVOID.match(text)) and _meaningful(match.group("x")):
        diet_key = _join_key("user_diet", _topic_key(match.group("x")))
        return [(_en_third_person(text), "fact", diet_key)]
    if _EN_AGE.match(text):
        return [(_en_third_person(text), "fact", "user_age")]
    if match := _EN_LIVE.match(text):
        owner = "user" if match.group("subj").lower() == "i" else "household"
        return [(_en_third_person(text), "fact", f"{owner}_residence")]
    if match := _EN_WORK.match(text):
        key = "user_job" if match.group("how").lower() == "as" else "user_employer"
        return [(_en_third_person(text), "fact", key)]
    if match := _EN_HAVE_COUNT.match(text):
        owner = "user" if match.group("subj").lower() == "i" else "household"
        return [
            (
                _en_third_person(text),
                "fact",
                _join_key(owner, _singular(match.group("x").lower())),
            )
        ]
    if match := _EN_IS_MY.match(text):
        who, rel = match.group("who"), match.group("rel")
        if who.lower() in _NOT_WHO:
            return []
        owner = "user" if match.group("owner").lower() == "my" else "household"
        content = f"{who} is the {owner}'s {rel}"
        return [(content, "person", _join_key(owner, _subject_key(rel)))]
    if _CONTEXT_PRONOUN.search(text):
        # "I see him every month": about someone named in an earlier sentence.
        return []
    if match := _EN_WHEN.match(text):
        sub = _en_third_person(match.group("sub"))
        main = _en_pronouns(match.group("main"), _SELF_REST)
        content = f"{_capitalize(match.group('conj').lower())} {sub[:1].lower()}{sub[1:]}, {main}"
        return [(content, "routine", None)]
    if match := _EN_EVERY_FIRST.match(text):
        when = _capitalize(match.group("when"))
        clause = _en_third_person(match.group("clause"))
        return [(f"{when} {clause[:1].lower()}{clause[1:]}", "routine", None)]
    if _EN_NOT_ROUTINE.match(text):
        return []
    if match := _EN_HABIT.match(text):
        category = "routine" if _TIME_CUES.search(match.group("rest")) else "pattern"
        return [(_en_third_person(text), category, None)]
    if _EN_EVERY_LATER.match(text) or (
        _EN_SUBJECT.match(text) and _EN_NAMED_WEEKDAYS.search(text)
    ):
        return [(_en_third_person(text), "routine", None)]
    return _en_about_me(text)


def _en_about_me(text: str) -> list[_Draft]:
    """Plain statements about oneself: "I grew up in Leeds", "I'm a nurse"."""
    match = _EN_ABOUT_ME.match(text)
    if match is None:
        return []
    rest = match.group("rest") or ""
    what = (match.group("what") or "").lower().split()
    if _EN_NOT_ABOUT_ME.search(rest) or (what and what[0] in _EN_NOT_WHAT):
        return []
    if what and (what[0] in _TRANSIENT or what[-1] in _TRANSIENT):
        return []
    if rest and not _meaningful(rest):
        return []
    category = _cue_category(text)
    verb = (match.group("verb") or "").lower()
    if category == "fact" and _EN_CLOCK_TIME.search(rest) and verb not in _EN_HAVE:
        category = "routine"  # "I take the 7:45 train": the present tense says daily
    key = None
    if verb in ("take", "catch") and (travel := _EN_TRANSPORT.search(rest)):
        key = _join_key("user", travel.group("how").lower())
    return [(_en_third_person(text), category, key)]
