"""The extraction rules for Chinese statements: drafts of facts (content, category, key)."""

from __future__ import annotations

import re

from .fact_keys import _join_key, _subject_key, _topic_key, _zh_key_words
from .rule_patterns import (
    _EVENT_CUES,
    _ROUTINE_CUES,
    _TIME_CUES,
    _ZH_ABOUT_ME,
    _ZH_AGE,
    _ZH_ALLERGY,
    _ZH_ALLERGY_BARE,
    _ZH_AVOID,
    _ZH_CALL_ME,
    _ZH_CALLED,
    _ZH_COMMAND_START,
    _ZH_COMMUTE,
    _ZH_DATE_OF,
    _ZH_DEVICE_COMMAND,
    _ZH_DIET,
    _ZH_EVERY_FIRST,
    _ZH_FAVORITE,
    _ZH_HABIT,
    _ZH_HAVE_COUNT,
    _ZH_HERE,
    _ZH_IS_MY,
    _ZH_LIKE,
    _ZH_LIKE_LATER,
    _ZH_LIVE,
    _ZH_LOCATION,
    _ZH_MEMBER,
    _ZH_MEMBER_NOT,
    _ZH_MY_PLAN,
    _ZH_NOT_NAME_START,
    _ZH_NOT_OBJECT_START,
    _ZH_OTHER_LIKE,
    _ZH_PERSON_SUBJECT,
    _ZH_PETS,
    _ZH_PLACE_END,
    _ZH_PLACE_INSIDE,
    _ZH_POSSESSIVE,
    _ZH_PUT,
    _ZH_REL,
    _ZH_RELATION,
    _ZH_SARCASM,
    _ZH_STATEMENT_MARK,
    _ZH_TAKE_WITH,
    _ZH_THING_EVENT,
    _ZH_THING_ROUTINE,
    _ZH_TRANSIENT_START,
    _ZH_WEEKLY_LESSON,
    _ZH_WORK,
    _cue_category,
    _cut_zh,
    _Draft,
    _meaningful,
    _subject_category,
)
from .sentences import _HAS_HAN, _is_question
from .third_person import _ZH_LEAD_MAP, _zh_rest, _zh_third_person


def _zh_remembered(text: str) -> list[_Draft]:
    if len(text) < 2:
        return []
    content = _zh_third_person(text)
    if not _ZH_STATEMENT_MARK.search(content):
        return [("用户要记得" + content, "note", None)]
    return [(content, _cue_category(text), None)]


def _chinese(text: str, *, explicit: bool) -> list[_Draft]:
    if match := _ZH_CALLED.match(text):
        return _zh_name(match.group("name"), "用户叫{}")
    if match := _ZH_CALL_ME.match(text):
        return _zh_name(match.group("name"), "用户希望被称为{}")
    if match := _ZH_ALLERGY.match(text) or _ZH_ALLERGY_BARE.match(text):
        x = _cut_zh(match.group("x"))
        if not _meaningful(x):
            return []
        who_key = _zh_who_key(match.group("who"))
        return [
            (
                _zh_third_person(text),
                "fact",
                _join_key(who_key, "allergy", _topic_key(x)),
            )
        ]
    if match := _ZH_FAVORITE.match(text):
        key = _join_key("user_favorite", *_zh_key_words(match.group("x")))
        return [(_zh_third_person(text), "preference", key)]
    if drafts := _zh_location(text):
        return drafts
    if match := _ZH_POSSESSIVE.match(text):
        return _zh_possessive(text, match, explicit=explicit)
    if match := _ZH_RELATION.match(text):
        rel = match.group("rel")
        verb = match.group("verb")
        content = f"用户的{rel}{verb}{_zh_rest(match.group('y'), other=True)}"
        category = "fact" if rel in _ZH_PETS else "person"
        key = _join_key(
            "user",
            *_zh_key_words(rel),
            "name" if "叫" in verb or "名字" in verb else "",
        )
        return [(content, category, key)]
    if match := _ZH_IS_MY.match(text):
        rel = match.group("rel")
        category = "fact" if rel in _ZH_PETS else "person"
        return [
            (
                f"{match.group('who')}是用户的{rel}",
                category,
                _join_key("user", *_zh_key_words(rel)),
            )
        ]
    if match := _ZH_DATE_OF.match(text):
        who = match.group("who")
        if who in ("他", "她", "你", "它", "您", "谁", "誰") or _is_question(who):
            return []
        what = "birthday" if match.group("what") == "生日" else "anniversary"
        content = _zh_third_person(text) if who.startswith("我") else text
        return [(content, "event", _join_key(_zh_who_key(who), what))]
    if match := _ZH_OTHER_LIKE.match(text):
        x = _cut_zh(match.group("x"))
        if x[:1] in _ZH_NOT_OBJECT_START or not _meaningful(x):
            return []
        rel = match.group("rel")
        content = f"用户的{rel}{match.group('adv')}{match.group('verb')}{_zh_rest(x, other=True)}"
        return [
            (
                content,
                "preference",
                _join_key("user", *_zh_key_words(rel), _topic_key(x)),
            )
        ]
    if match := _ZH_TAKE_WITH.match(text):
        key = _join_key("user", _topic_key(match.group("x")))
        return [(_zh_third_person(text), "preference", key)]
    if match := _ZH_LIKE.match(text):
        x = _cut_zh(match.group("x"))
        if x[:1] in _ZH_NOT_OBJECT_START or not _meaningful(x):
            return []
        content = f"用户{match.group('adv')}{match.group('verb')}{_zh_rest(x)}"
        return [(content, "preference", _join_key("user", _topic_key(x)))]
    return _zh_member(text) or _zh_facts(text)


def _zh_location(text: str) -> list[_Draft]:
    """Where things are kept: "雨伞放在门口的鞋柜里", "护照在书房的抽屉里"."""
    if put := _ZH_PUT.match(text):
        key = _join_key(_subject_key(put.group("x")), "location")
        return [(_zh_third_person(text), "fact", key)]
    match = _ZH_LOCATION.match(text)
    if match is None:
        return []
    x, y = match.group("x"), match.group("y")
    if (
        not match.group("verb")
        and not y.endswith(_ZH_PLACE_END)
        and not _ZH_PLACE_INSIDE.search(y)
    ):
        return []  # "我在成都长大": not where something is kept
    if _ZH_PERSON_SUBJECT.search(x) or x.startswith(_ZH_PETS) or _EVENT_CUES.search(x):
        return []  # "妈妈在厨房里": where someone is now
    if y in _ZH_HERE or x.startswith(_ZH_DEVICE_COMMAND):
        return []  # "关闭遮阳蓬在这里": a command at a voice device, no place to keep
    content = (
        _zh_third_person(text) if match.group("owner") else _zh_rest(text, other=True)
    )
    return [(content, "fact", _join_key(_subject_key(x), "location"))]


def _zh_member(text: str) -> list[_Draft]:
    """Others in the household: "我爸爸有高血压", "我儿子小宝每周六踢球"."""
    match = _ZH_MEMBER.match(text)
    if match is None or _ZH_MEMBER_NOT.search(match.group("rest")):
        return []
    rest = match.group("rest")
    rel = match.group("rel") or match.group("kin")
    said_owner = match.group("owner") or "我"
    owner = "用户的" if said_owner in ("我", "我的") else "用户家的"
    content = f"{owner}{rel}{_zh_rest(rest, other=True)}"
    if _ROUTINE_CUES.search(rest):
        category = "routine"
    else:
        category = "fact" if rel in _ZH_PETS else "person"
    key = None
    if re.match("^(?:[^，,]{0,3}?)住在", rest):
        key = _join_key(_zh_who_key(said_owner + rel), "residence")
    return [(content, category, key)]


def _zh_like_later(text: str) -> list[_Draft]:
    """A like-verb after a time or a topic: "周末我喜欢……", "我喝茶喜欢加柠檬"."""
    match = _ZH_LIKE_LATER.match(text)
    if match is None:
        return []
    x = _cut_zh(match.group("x"))
    if not _meaningful(x):
        return []
    owner = "user" if match.group("subj") == "我" else "household"
    content = _zh_rest(text, other=True)
    for household in ("我们家", "我們家"):
        content = content.replace(household, "用户家")
    return [(content, "preference", _join_key(owner, _topic_key(x)))]


def _zh_name(name: str, template: str) -> list[_Draft]:
    if name[:1] in _ZH_NOT_NAME_START or (_HAS_HAN.match(name) and len(name) < 2):
        return []
    return [(template.format(name), "person", "user_name")]


def _zh_who_key(who: str) -> str:
    if relation := re.match(rf"^(我(?:的)?(?:{_ZH_REL}))", who):
        who = relation.group(1)  # "我儿子小宝": the son, whatever his name
    if match := re.match(r"^(?:我们家|我們家|我们|我們|我家)(?:的)?(.*)$", who):
        return _join_key("household", *_zh_key_words(match.group(1))) or "household"
    if match := re.match(r"^我(?:的)?(.*)$", who):
        return _join_key("user", *_zh_key_words(match.group(1))) or "user"
    return _subject_key(who)


def _zh_possessive(text: str, match: re.Match[str], *, explicit: bool) -> list[_Draft]:
    owner = match.group("owner")
    x, verb, y = match.group("x"), match.group("verb"), match.group("y")
    if not explicit and y.startswith(_ZH_TRANSIENT_START):
        return []
    prefix = "user" if owner == "我的" else "household"
    label = {"我的": "用户的", "我们的": "用户一家的", "我們的": "用户一家的"}.get(
        owner, "用户家的"
    )
    content = f"{label}{x}{verb}{_zh_rest(y)}"
    category = "person" if x in ("名字", "姓名") else _subject_category(x)
    key = _join_key(prefix, *_zh_key_words(x), "name" if verb == "叫" else "")
    return [(content, category, key)]


def _zh_facts(text: str) -> list[_Draft]:
    if _ZH_DIET.match(text):
        return [(_zh_third_person(text), "fact", "user_diet")]
    if (match := _ZH_AVOID.match(text)) and _meaningful(match.group("x")):
        key = _join_key("user_diet", _topic_key(match.group("x")))
        return [(_zh_third_person(text), "fact", key)]
    if _ZH_AGE.match(text):
        return [(_zh_third_person(text), "fact", "user_age")]
    if match := _ZH_LIVE.match(text):
        owner = "user" if match.group("who") == "我" else "household"
        return [(_zh_third_person(text), "fact", f"{owner}_residence")]
    if work := _ZH_WORK.match(text):
        key = "user_job" if work.group("job") else "user_employer"
        return [(_zh_third_person(text), "fact", key)]
    if match := _ZH_HAVE_COUNT.match(text):
        owner = "user" if match.group("who") == "我" else "household"
        return [
            (
                _zh_third_person(text),
                "fact",
                _join_key(owner, *_zh_key_words(match.group("x"))),
            )
        ]
    if text.startswith(_ZH_COMMAND_START) or _ZH_SARCASM.search(text):
        return []
    if drafts := _zh_like_later(text):
        return drafts
    if commute := _ZH_COMMUTE.match(text):
        key = _join_key("user", _topic_key(commute.group("how")))
        return [(_zh_third_person(text), "routine", key)]
    if match := _ZH_EVERY_FIRST.match(text):
        subject = _ZH_LEAD_MAP[match.group("subj")]
        return [
            (
                f"{subject}{match.group('when')}{_zh_rest(match.group('rest'))}",
                "routine",
                None,
            )
        ]
    if match := _ZH_HABIT.match(text):
        timed = (
            match.group("pre")
            or match.group("adv").startswith("每")
            or _TIME_CUES.search(match.group("rest"))
        )
        return [(_zh_third_person(text), "routine" if timed else "pattern", None)]
    if _ZH_WEEKLY_LESSON.match(text):
        return [(_zh_third_person(text), "routine", None)]
    if _ZH_MY_PLAN.match(text):
        return [(_zh_third_person(text), "event", None)]
    if _ZH_ABOUT_ME.match(text):
        return [(_zh_third_person(text), _cue_category(text), None)]
    if _ZH_THING_ROUTINE.match(text):
        return [(_zh_rest(text, other=True), "routine", None)]
    head, _, tail = text.partition("，")
    if head.startswith("我") and (like := _ZH_LIKE.match("我" + tail)):
        x = _cut_zh(like.group("x"))
        if _meaningful(x):
            content = f"用户{like.group('adv')}{like.group('verb')}{_zh_rest(x)}"
            return [(content, "preference", _join_key("user", _topic_key(x)))]
    if _ZH_THING_EVENT.match(text):
        return [(_zh_rest(text, other=True), "event", None)]
    return []
