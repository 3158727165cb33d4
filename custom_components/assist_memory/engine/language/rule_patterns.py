"""What the extraction rules match, in English and Chinese.

The statements about the user, the household and the people and pets around them, and
the cues that give a fact its category.
"""

from __future__ import annotations

import re
from typing import Final

from .keywords import expresses_preference, extract_keywords
from .sentences import _HAN, _TRAILING

# -- cues --------------------------------------------------------------------------

_WEEKDAYS: Final = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_PERIODS: Final = (
    rf"day|morning|afternoon|evening|night|week|weekend|weekday|month|year|{_WEEKDAYS}"
    r"|summer|winter|spring|autumn|fall|time"
)
_EN_RELATIONS: Final = (
    r"wife|husband|partner|spouse|boyfriend|girlfriend|fiance|fiancee|son|daughter|kids?"
    r"|child|children|baby|mom|mum|mother|dad|father|parents?|brother|sister|siblings?"
    r"|grandma|grandmother|grandpa|grandfather|grandparents?|aunt|uncle|cousin|niece"
    r"|nephew|friend|boss|colleague|coworker|co-worker|neighbou?r|roommate|flatmate"
    r"|nanny|babysitter|doctor|dentist"
)
_EN_EVENT_SUBJECT: Final = re.compile(
    r"\b(?:birthday|anniversary|appointment|wedding|meeting|exam|flight|surgery"
    r"|due date|vacation|holiday|trip|party|graduation)\b",
    re.IGNORECASE,
)
_EN_PREFERENCE_SUBJECT: Final = re.compile(
    r"\b(?:favou?rite|fave|preferred|go-to|go\s+to)\b", re.IGNORECASE
)
_EN_PERSON_SUBJECT: Final = re.compile(
    rf"\b(?:{_EN_RELATIONS})(?:'s)?\b", re.IGNORECASE
)
_ZH_RELATIONS: Final = tuple(
    sorted(
        """
        老婆 妻子 太太 老公 丈夫 先生 爱人 愛人 男朋友 女朋友 男友 女友 未婚夫 未婚妻 儿子 兒子
        女儿 女兒 孩子 小孩 妈妈 媽媽 母亲 母親 妈 媽 爸爸 父亲 父親 爸 哥哥 姐姐 弟弟 妹妹 爷爷
        爺爺 奶奶 外公 外婆 姥姥 姥爷 姥爺 公公 婆婆 岳父 岳母 朋友 好朋友 闺蜜 閨蜜 老板 老闆
        上司 同事 邻居 鄰居 室友 宝宝 寶寶 保姆 医生 醫生 姊姊 阿嬷 阿嬤 阿公 阿姨 叔叔 舅舅
        姑姑 伯伯 孙子 孫子 孙女 孫女 外孙 外孫
        """.split(),
        key=len,
        reverse=True,
    )
)
_ZH_PETS: Final = ("狗狗", "小狗", "小猫", "猫咪", "狗", "猫", "貓")
# Kin said without "my" still mean the speaker's ("外婆住在杭州"); friends need "my".
_ZH_KIN: Final = tuple(
    sorted(
        """
        老婆 太太 老公 先生 儿子 兒子 女儿 女兒 妈妈 媽媽 爸爸 哥哥 姐姐 姊姊 弟弟 妹妹 爷爷
        爺爺 奶奶 外公 外婆 姥姥 姥爷 姥爺 阿嬷 阿嬤 阿公
        """.split(),
        key=len,
        reverse=True,
    )
)
_ZH_REL: Final = "|".join((*_ZH_RELATIONS, *_ZH_PETS))
_ZH_EVENT_SUBJECT: Final = re.compile(
    "生日|纪念日|紀念日|周年|週年|婚礼|婚禮|预约|預約|考试|考試|航班"
)
_ZH_PREFERENCE_SUBJECT: Final = re.compile("最喜欢|最喜歡|最爱|最愛|偏好")
_ZH_PERSON_SUBJECT: Final = re.compile("|".join(_ZH_RELATIONS))

_ROUTINE_CUES: Final = re.compile(
    rf"\b(?:every|each|daily|weekly|usually|always|normally|on (?:{_WEEKDAYS})s|on weekends"
    r"|on weekdays)\b|每天|每日|每周|每週|每个|每個|每晚|每年|每月|通常|总是|總是|平时|平時",
    re.IGNORECASE,
)
_TIME_CUES: Final = re.compile(
    rf"\b(?:at \d{{1,2}}(?::\d\d)?|\d{{1,2}}(?::\d\d)? ?(?:am|pm|o'clock)|morning|mornings"
    rf"|evening|evenings|night|nights|afternoon|noon|midnight|bedtime|breakfast|lunch"
    rf"|dinner|weekend|weekends|weekday|weekdays|(?:{_WEEKDAYS})s?|before work|after work"
    r"|before bed|after school|every|each|daily|weekly|summer|winter|spring|autumn"
    r"|holidays?|vacations?)\b"
    r"|早上|早晨|上午|中午|下午|晚上|傍晚|夜里|夜裡|睡前|饭后|飯後|饭前|飯前|点|點|周|週|星期|礼拜|禮拜|每",
    re.IGNORECASE,
)
_EVENT_CUES: Final = re.compile(
    rf"\b(?:{_WEEKDAYS}|january|february|march|april|may|june|july|august|september"
    r"|october|november|december|tomorrow|tonight|next (?:week|month|year)|birthday"
    r"|anniversary|appointment|meeting|wedding|flight|trip|vacation|holiday|deadline"
    r"|\d{1,2}(?:st|nd|rd|th))\b"
    r"|明天|后天|後天|下周|下週|下个?星期|下個?星期|下个?月|下個?月|周[一二三四五六日天]"
    r"|星期[一二三四五六日天]|礼拜[一二三四五六日天]|\d+月|[一二三四五六七八九十]+月|\d+[号號日]"
    r"|生日|纪念日|紀念日|预约|預約|会议|會議|开会|開會|航班|旅行|假期|婚礼|婚禮",
    re.IGNORECASE,
)


_PREFERENCE_WORDS: Final = re.compile(
    r"\b(?:likes?|loves?|prefers?|enjoys?|hates?|dislikes?|adores?|favou?rite)\b",
    re.IGNORECASE,
)


def _recurs(text: str) -> bool:
    """Whether a statement says something happens again and again."""
    return bool(
        _ROUTINE_CUES.search(text)
        or _EN_NAMED_WEEKDAYS.search(text)
        or (_EN_PLURAL_PRESENT.match(text) and _EN_ON_WEEKDAY.search(text))
    )


def _cue_category(text: str) -> str:
    if _recurs(text):
        return "routine"
    if _EVENT_CUES.search(text):
        return "event"
    if expresses_preference(text) or _PREFERENCE_WORDS.search(text):
        return "preference"
    if _EN_PERSON_SUBJECT.search(text) or _ZH_PERSON_SUBJECT.search(text):
        return "person"
    return "fact"


def _subject_category(subject: str) -> str:
    if _EN_EVENT_SUBJECT.search(subject) or _ZH_EVENT_SUBJECT.search(subject):
        return "event"
    if _EN_PREFERENCE_SUBJECT.search(subject) or _ZH_PREFERENCE_SUBJECT.search(subject):
        return "preference"
    if _EN_PERSON_SUBJECT.search(subject) or _ZH_PERSON_SUBJECT.search(subject):
        return "person"
    return "fact"


# -- English patterns ---------------------------------------------------------------

_NAME: Final = r"(?P<name>[^\W\d_][\w.'-]*(?:\s+[^\W\d_][\w.'-]*){0,3}?)"
_NOT_NAMES: Final = frozenset(
    """
    not a an the actually really just also back later tomorrow tonight when if at in on
    after before now soon up maybe again every once sometime around by whenever anytime
    sometimes please as and or too daily anything something whatever out over home
    """.split()
)
_EN_NAME: Final = re.compile(
    r"^(?:my\s+name\s+is|my\s+name's|i'm\s+called|i\s+am\s+called|people\s+call\s+me"
    r"|everyone\s+calls\s+me|everybody\s+calls\s+me)\s+" + _NAME + "$",
    re.IGNORECASE,
)
_EN_CALL_ME: Final = re.compile(
    r"^(?:(?:you\s+can|you\s+may|please|just|from\s+now\s+on,?|always)\s+)*call\s+me\s+"
    + _NAME
    + r"(?:\s+(?:from\s+now\s+on|please))?$",
    re.IGNORECASE,
)
_EN_ALLERGY: Final = re.compile(
    r"^i(?:'m|\s+am)\s+(?P<neg>not\s+)?(?P<degree>(?:(?:very|severely|mildly|slightly"
    r"|really|also|highly|deathly|extremely|seriously)\s+)*)allergic\s+to\s+(?P<x>.+)$",
    re.IGNORECASE,
)
_EN_ALLERGY_HAVE: Final = re.compile(
    r"^i\s+have\s+(?:an?\s+)?(?:(?:severe|mild|slight|serious|bad)\s+)?"
    r"(?:allergy\s+to\s+(?P<to>.+)|(?P<x>[\w\s-]{1,40}?)\s+allerg(?:y|ies))$",
    re.IGNORECASE,
)
_EN_POSSESSIVE: Final = re.compile(
    r"^(?P<owner>my|our)\s+(?P<x>(?:[\w'-]+\s+){0,4}?[\w'-]+)\s+(?P<verb>is|are)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
_EN_OTHER_POSSESSIVE: Final = re.compile(
    r"^(?P<who>[A-Za-z][\w-]*(?:\s+[A-Z][\w-]*)?)'s\s+(?P<x>(?:[\w'-]+\s+){0,3}?[\w'-]+)"
    r"\s+(?P<verb>is|are)\s+(?P<y>.+)$",
    re.IGNORECASE,
)
_X_STOP: Final = frozenset(
    """
    think thinks said says know knows and or that which who if when because but is are
    was were not will would can should do does did has have had
    """.split()
)
_TRANSIENT: Final = frozenset(
    """
    dead broken low empty full tired busy late early bad good great fine ok okay nice
    awful terrible so too very really pretty kind sort not still already almost gone
    missing lost here there off on out up down over somewhere away sick ill sore cold
    hot warm dark bright loud quiet dirty clean messy open closed locked unlocked wet
    dry hungry thirsty sleepy bored sad happy angry upset stuck done finished ready free
    available
    """.split()
)
_NOT_WHO: Final = frozenset(
    """
    it that there here what who where how when why which he she let today tomorrow
    yesterday tonight everyone everybody nobody somebody someone one this life
    """.split()
)
_PRE: Final = (
    r"(?P<pre>(?:(?:really|absolutely|totally|truly|just|also|definitely|generally|actually"
    r"|still|kind\s+of|sort\s+of|quite|much|especially|particularly|very\s+much|do|don't"
    r"|do\s+not|never|always|usually|honestly|secretly)\s+)*)"
)
_EN_LIKE: Final = re.compile(
    r"^(?P<subj>i|we|my\s+(?P<partner>[\w'-]+)\s+and\s+i)\s+"
    + _PRE
    + r"(?P<verb>prefer|like|love|enjoy|adore|hate|dislike|detest|loathe|can't\s+stand"
    r"|cannot\s+stand)\s+(?P<x>.+)$",
    re.IGNORECASE,
)
_WHO: Final = (
    r"(?P<who>(?i:my|our)\s+[\w'-]+(?:'s\s+[\w'-]+)?|(?i:mom|mum|dad|grandma|grandpa)"
    r"|[A-Z][a-z][\w-]*)"
)
_EN_OTHER_LIKE: Final = re.compile(
    "^"
    + _WHO
    + r"\s+(?i:"
    + _PRE
    + r"(?P<verb>prefers|likes|loves|enjoys|adores|hates|dislikes|detests|loathes"
    r"|can't\s+stand|cannot\s+stand|doesn't\s+like|does\s+not\s+like|doesn't\s+love"
    r"|doesn't\s+enjoy)\s+(?P<x>.+))$"
)
_EN_OTHER_ALLERGY: Final = re.compile(
    "^"
    + _WHO
    + r"\s+(?i:is\s+(?P<neg>not\s+)?(?:(?:very|severely|mildly|also|highly)\s+)*"
    r"allergic\s+to\s+(?P<x>.+))$"
)
_EN_IS_MY: Final = re.compile(
    r"^(?P<who>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,2})\s+(?i:is\s+(?P<owner>my|our)\s+"
    r"(?P<rel>(?:(?:best|older|younger|big|little|eldest|youngest|oldest)\s+)?(?:"
    + _EN_RELATIONS
    + r")))$"
)
_EN_WHEN: Final = re.compile(
    r"^(?P<conj>when|whenever|after|before|once)\s+(?P<sub>(?:i|we)\b[^,]+),\s*"
    r"(?P<main>(?:i|we)\s+(?:always|usually|normally|often|never|typically|generally"
    r"|tend\s+to)\b.+)$",
    re.IGNORECASE,
)
_CONTEXT_PRONOUN: Final = re.compile(
    r"\b(?:he|him|his|she|her|hers|they|them|those|these|there)\b", re.IGNORECASE
)
_EN_HABIT: Final = re.compile(
    r"^(?P<subj>i|we)\s+(?:(?:also|still|almost)\s+)?(?:always|usually|normally|often"
    r"|typically|generally|never|rarely|seldom|regularly|mostly|sometimes|frequently"
    r"|tend\s+to)\s+(?P<rest>.+)$",
    re.IGNORECASE,
)
_EN_EVERY_FIRST: Final = re.compile(
    rf"^(?P<when>(?:every|each)\s+(?:[\w-]+\s+){{0,2}}?(?:{_PERIODS})s?"
    rf"|on\s+(?:the\s+(?:first|second|third|last)\s+)?(?:{_WEEKDAYS})"
    rf"(?:\s+(?:and|or)\s+(?:{_WEEKDAYS}))*\s+(?:mornings|evenings|afternoons|nights"
    rf"|of\s+(?:every|each|the)\s+month)"
    rf"|on\s+(?:(?:{_WEEKDAYS})s|weekends|weekdays)|(?:in\s+the\s+)?(?:mornings|evenings)"
    r"|weekdays|weekends)\s*,?\s+(?P<clause>(?:i|we)\s+.+)$",
    re.IGNORECASE,
)
_EN_EVERY_LATER: Final = re.compile(
    rf"^(?:i|we)\s+.+\b(?:(?:every|each)\s+(?:[\w-]+\s+){{0,2}}?(?:{_PERIODS})s?"
    rf"|daily|weekly|on\s+(?:(?:{_WEEKDAYS})s|weekends|weekdays))\b",
    re.IGNORECASE,
)
_EN_NOT_ROUTINE: Final = re.compile(
    r"^(?:i|we)\s+(?:want|need|wanna|gotta|have\s+to|must|should|will|'ll|am\s+going"
    r"|'m\s+going)\b|^(?:i|we)'(?:ll|d)\b",
    re.IGNORECASE,
)
_EN_LIVE: Final = re.compile(
    r"^(?P<subj>i|we)\s+(?:currently\s+|now\s+)?live\s+(?:in|at|on|near)\s+\S.*$",
    re.IGNORECASE,
)
_EN_WORK: Final = re.compile(
    r"^i\s+(?:currently\s+|now\s+)?work\s+(?P<how>as|at|for)\s+\S.*$", re.IGNORECASE
)
_EN_DIET: Final = re.compile(
    r"^i(?:'m|\s+am)\s+(?:(?:a|an|strictly|mostly|fully)\s+)?(?P<diet>vegetarian|vegan"
    r"|pescatarian|halal|kosher|lactose[\s-]intolerant|gluten[\s-]intolerant|diabetic"
    r"|celiac|coeliac)\b.*$",
    re.IGNORECASE,
)
_EN_AVOID: Final = re.compile(
    r"^i\s+(?:don't|do\s+not|can't|cannot)\s+(?:eat|drink)\s+(?P<x>.+)$", re.IGNORECASE
)
_EN_AGE: Final = re.compile(
    r"^i(?:'m|\s+am)\s+(?P<n>\d{1,3})(?:\s+years?\s+old)?$", re.IGNORECASE
)
_EN_HAVE_COUNT: Final = re.compile(
    r"^(?P<subj>i|we)\s+have\s+(?:a|an|one|two|three|four|five|six|\d{1,2})\s+"
    r"(?:[\w-]+\s+){0,2}?(?P<x>kids?|children|child|sons?|daughters?|cats?|dogs?|pets?"
    r"|birds?|fish|rabbits?|hamsters?|horses?|cars?|bikes?|bicycles?|grandchildren"
    r"|grandkids?|brothers?|sisters?|siblings?)\b.*$",
    re.IGNORECASE,
)
_EN_REMEMBER: Final = re.compile(
    r"^(?:please\s+)?(?P<polite>(?:can|could|would|will)\s+you\s+(?:please\s+)?)?"
    r"(?:remember|memori[sz]e|note|make\s+a\s+note(?:\s+of)?|take\s+a\s+note(?:\s+of)?"
    r"|keep\s+in\s+mind|bear\s+in\s+mind|don't\s+forget|do\s+not\s+forget|never\s+forget"
    r"|always\s+remember)(?:\s+(?:this|the\s+fact))?\s*(?:\bthat\b|:|,|-)?\s*(?P<x>.+)$",
    re.IGNORECASE,
)
_EN_REMEMBER_TO: Final = re.compile(r"^to\s+(?P<task>.+)$", re.IGNORECASE)
_EN_WH_START: Final = re.compile(
    r"^(?:what|who|whom|whose|which|why|how|where|when|if|whether)\b", re.IGNORECASE
)

_PLACE_PREPOSITION: Final = (
    r"(?P<prep>in|inside|under|underneath|beneath|behind|next\s+to|beside|by|above|below"
    r"|on\s+top\s+of|on|at\s+the\s+back\s+of|in\s+front\s+of)"
)
_PLACE: Final = (
    _PLACE_PREPOSITION
    + r"\s+(?P<y>(?:the|a|an|our|my|their|his|her)\s+.+|[A-Z][\w-]*'s\s+.+)$"
)
_EN_LOCATION: Final = re.compile(
    r"^(?P<owner>(?:the|our|my)\s+)?(?P<x>(?:[\w'-]+\s+){0,5}?[\w'-]+)\s+(?:is|are"
    r"|lives?|hangs?|sits?|stays?|goes)\s+(?:(?:always|usually|kept|stored|hidden"
    r"|hanging|tucked|stuck|pinned|taped|up|down|out|back|all)\s+)*" + _PLACE,
    re.IGNORECASE,
)
_EN_KEEP_IN: Final = re.compile(
    r"^(?P<subj>i|we)\s+(?:(?:always|usually|normally)\s+)?(?:keep|store|hide|put)\s+"
    r"(?P<x>(?:the|our|my|a|an)\s+(?:[\w'-]+\s+){0,4}?[\w'-]+)\s+" + _PLACE,
    re.IGNORECASE,
)
_NOT_PLACES: Final = re.compile(
    r"^(?:a|an|the)\s+(?:bad|good|foul|great)\s+mood\b|^(?:a|the)\s+(?:way|mess|hurry)\b",
    re.IGNORECASE,
)
_PEOPLE_AND_PETS: Final = (
    _EN_RELATIONS
    + r"|twins|family|everyone|everybody|people|guests|dog|cat|puppy|kitten|rabbit|bunny"
    r"|hamster|parrot|bird|tortoise|horse|pet|pets|he|she|they|it|we|you"
)
_EN_PERSON_HEAD: Final = re.compile(rf"^(?:{_PEOPLE_AND_PETS})$", re.IGNORECASE)
_EN_PETS: Final = (
    r"dog|cat|puppy|kitten|rabbit|bunny|hamster|guinea\s+pig|parrot|budgie|bird|fish"
    r"|tortoise|turtle|horse|pony|chickens?|goldfish|lizard|snake"
)
_EN_MEMBER: Final = re.compile(
    r"^(?P<owner>(?i:my|our))\s+(?P<rel>(?i:(?:step|grand|great-)?(?:"
    + _EN_RELATIONS
    + r"|"
    + _EN_PETS
    + r"|nan|nana|granny|gran|grandad|granddad|twins|in-laws)(?:-in-law)?))"
    r"(?:\s+(?P<name>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?),?)?\s+(?P<rest>[a-z].*)$"
)
_EN_NAMED: Final = re.compile(
    r"^(?P<name>[A-Z][a-z][\w'-]*(?:\s+[A-Z][a-z][\w'-]*)?)\s+(?P<rest>(?P<verb>is|has"
    r"|was|can't|cannot|doesn't|isn't|won't|[a-z]+s)\b.*)$"
)
# Capitalised words that start sentences without naming anyone.
_NOT_NAMED: Final = frozenset(
    """
    on in at for with from by to of after before during since until
    this that it there he she they what who everything nothing something everyone
    everybody nobody somebody someone today tomorrow yesterday tonight dinner lunch
    breakfast weather traffic work life time music news dogs cats kids children people
    the a an my our your his her their its these those some all
    january february march april may june july august september october november
    december monday tuesday wednesday thursday friday saturday sunday christmas easter
    """.split()
)
_EN_NOT_STATED: Final = frozenset(
    """
    says said say tells told tell texted asks asked ask wants wanted want thinks thought
    think wonders wonder hopes hope guesses guess reckons reckon believes believe feels
    feel knows know just always never will would might could should must maybe
    """.split()
)
_EN_PET_NAME: Final = re.compile(
    r"^the\s+(?P<pet>" + _EN_PETS + r")'s\s+name\s+is\s+(?P<name>[A-Z][\w'-]*)$",
    re.IGNORECASE,
)
_EN_RATHER: Final = re.compile(
    r"^i(?:'d|\s+would)\s+(?:much\s+|really\s+)?(?P<verb>rather|prefer)\s+(?P<x>.+)$",
    re.IGNORECASE,
)
_EN_TAKE_WITH: Final = re.compile(
    r"^(?P<subj>i|we)\s+(?:(?:always|usually|normally|only)\s+)?(?:take|have|drink"
    r"|eat)\s+(?:my|our)\s+(?P<x>[\w-]+(?:\s+[\w-]+)?)\s+(?P<how>(?:with|without|black"
    r"|white|strong|weak|plain|no)\b.*)$",
    re.IGNORECASE,
)
# "my coffee black", "our tea with lemon": a thing and how it is had.
_EN_MY_THING_HOW: Final = re.compile(
    r"^(?:my|our)\s+(?P<x>[\w-]+(?:\s+[\w-]+)?)\s+(?:with|without|black|white|strong"
    r"|weak|plain|no|extra|hot|cold|iced)\b",
    re.IGNORECASE,
)
# How one travels: "I take the 7:45 train to work" later "the 8:10 train".
_EN_TRANSPORT: Final = re.compile(
    r"\b(?P<how>train|bus|tube|tram|ferry|subway|metro|coach)\b", re.IGNORECASE
)
_EN_ABOUT_ME: Final = re.compile(
    r"^i(?:\s+|(?='ve))(?:(?:also|still|now|currently)\s+)?(?P<verb>grew|was\s+born|speak|drive|ride"
    r"|play|teach|taught|studied|study|work|worked|moved|support|own|volunteer|sing|catch|collect"
    r"|knit|run|cycle|swim|go|wear|use|cook|bake|need|take|have|'ve\s+got|got)\b\s*"
    r"(?P<rest>.+)$"
    r"|^i(?:'m|\s+am)\s+(?:(?:a|an)\s+(?P<what>[\w'-]+(?:\s+[\w'-]+)*)"
    r"|(?P<trait>left-handed|right-handed|left\s+handed|right\s+handed|colou?r-?blind"
    r"|short-sighted|long-sighted|deaf|hard\s+of\s+hearing|pregnant|retired"
    r"|self-employed|diabetic|asthmatic))\b.*$",
    re.IGNORECASE,
)
# After "I need"/"I have": what makes it a passing wish or a chore, not a fact.
_EN_NOT_ABOUT_ME: Final = re.compile(
    r"^(?:to|a\s+(?:coffee|tea|drink|break|nap|rest|minute|moment|second|shower|hand"
    r"|word)|an?\s+(?:idea|question)|no\s+idea|got\s+to|been|fun|some\s+time)\b"
    r"|\b(?:today|tonight|right\s+now|tomorrow|this\s+(?:morning|afternoon|evening))\b",
    re.IGNORECASE,
)
_EN_CLOCK_TIME: Final = re.compile(
    r"\b\d{1,2}:\d\d\b|\b\d{1,2}\s*(?:am|pm|o'clock)\b", re.IGNORECASE
)
_EN_HAVE: Final = frozenset({"have", "'ve got", "got", "need"})
_EN_NOT_WHAT: Final = frozenset("bit little lot huge big fan bit".split())
_EN_SCHEDULED_THING: Final = re.compile(
    r"^(?:the|my|our)\s+(?P<x>(?:[\w'-]+\s+){0,3}?[\w'-]+)\s+(?:is|are|comes?|goes"
    r"|go|renews?|starts?|ends?|runs?|opens?|closes?|happens?)\b",
    re.IGNORECASE,
)
# "The bins go out", "Piano lessons are": present tense of a plural subject, which
# with a plain weekday means every week (a one-off says "is", "this", "next").
_EN_PLURAL_PRESENT: Final = re.compile(
    r"^(?:the|my|our)?\s*(?:[\w'-]+\s+){0,3}?[\w'-]+s\s+(?:are|go|come|start|end|run"
    r"|open|close|happen)\b(?!.*\b(?:this|next|tomorrow|coming)\b)",
    re.IGNORECASE,
)
_EN_ON_WEEKDAY: Final = re.compile(rf"\bon\s+(?:{_WEEKDAYS})\b", re.IGNORECASE)
_EN_NOT_SCHEDULED: Final = re.compile(
    r"^(?:weather|forecast|traffic|sky|rain|sun|news|tv|television|radio|music|kids"
    r"|children)\b",
    re.IGNORECASE,
)
_EN_NAMED_WEEKDAYS: Final = re.compile(
    rf"\bon\s+(?:the\s+first\s+|the\s+last\s+)?(?:{_WEEKDAYS})(?:\s*(?:,|and|or|&)\s*"
    rf"(?:{_WEEKDAYS}))*\s+(?:mornings|evenings|afternoons|nights)\b"
    rf"|\bevery\s+(?:other|second|third)\s+(?:{_WEEKDAYS}|week|month)\b"
    rf"|\bon\s+(?:workdays|school\s+days|schooldays)\b",
    re.IGNORECASE,
)

# -- Chinese patterns -------------------------------------------------------------

_ZH_NAME: Final = r"(?P<name>[^\s，,。！？!?：:、]{1,12}?)"
_ZH_NOT_NAME_START: Final = "了过過着著他她你您它人车車醒起去回吃做一来來出下上"
_ZH_CALLED: Final = re.compile(r"^我(?:的名字)?(?:叫做|叫|名叫)" + _ZH_NAME + "$")
_ZH_CALL_ME: Final = re.compile(
    r"^(?:请|請|你|以后|以後|就|可以|你可以|都|以后就|以後就)*叫我"
    + _ZH_NAME
    + r"(?:就(?:行|好|可以)了?|就行|好了|吧)?$"
)
_ZH_ALLERGY: Final = re.compile(
    r"^(?P<who>我(?:的)?(?:(?:"
    + _ZH_REL
    + rf")[{_HAN}]{{0,3}}?)?)(?P<neg>不)?[对對](?P<x>[^，,]{{1,20}}?)(?:不)?[过過]敏$"
)
_ZH_ALLERGY_BARE: Final = re.compile(
    r"^(?P<who>我(?:的)?(?:"
    + _ZH_REL
    + r")?)(?:有)?(?P<x>[^对對不，,]{1,10}?)[过過]敏(?:症)?$"
)
_ZH_FAVORITE: Final = re.compile(
    r"^我(?:的)?最(?:喜欢|喜歡|爱|愛)的(?P<x>[^是，,]{1,12}?)(?:是|变成|變成|换成|換成|改成)"
    r"(?P<y>.+)$"
)
_ZH_POSSESSIVE: Final = re.compile(
    r"^(?P<owner>我们家的?|我們家的?|我家的?|我们的|我們的|我的|家里的|家裡的)(?P<x>[^是叫，,]{1,12}?)"
    r"(?P<verb>是|叫)(?P<y>.+)$"
)
_ZH_RELATION: Final = re.compile(
    r"^我(?P<rel>" + _ZH_REL + r")(?P<verb>的名字是|的名字叫|名叫|叫做|叫|是)(?P<y>.+)$"
)
_ZH_DATE_OF: Final = re.compile(
    r"^(?P<who>[^，,的]{1,10})的(?P<what>生日|结婚纪念日|結婚紀念日|纪念日|紀念日)(?:是|在)(?P<y>.+)$"
)
_ZH_IS_MY: Final = re.compile(
    r"^(?P<who>[^我你您他她它这這那谁誰，,]{1,8})是我(?:的)?(?P<rel>" + _ZH_REL + r")$"
)
_ZH_PRE: Final = (
    r"(?P<adv>(?:也|还|還|真的|真|非常|很|特别|特別|超级|超級|超|最|比较|比較|更|挺|一直|都"
    r"|蛮|蠻|好|其实|其實)*)"
)
_ZH_LIKE_VERBS: Final = (
    r"(?P<verb>不太喜欢|不太喜歡|不怎么喜欢|不怎麼喜歡|不喜欢|不喜歡|不爱|不愛|讨厌|討厭"
    r"|受不了|反感|喜欢|喜歡|热爱|熱愛|偏爱|偏愛|偏好|钟爱|鍾愛|爱|愛|享受)"
)
_ZH_TAKE_WITH: Final = re.compile(
    r"^我(?:喝|吃)(?P<x>[^，,]{1,6}?)(?:都|一般|通常|喜欢|喜歡|习惯|習慣)?(?:要|会|會)?"
    r"(?:加|放|配|不加|不放)(?P<y>[^，,]+)$"
)
_ZH_LIKE: Final = re.compile(r"^我" + _ZH_PRE + _ZH_LIKE_VERBS + r"(?P<x>.+)$")
_ZH_OTHER_LIKE: Final = re.compile(
    r"^我(?:的)?(?P<rel>" + _ZH_REL + ")" + _ZH_PRE + _ZH_LIKE_VERBS + r"(?P<x>.+)$"
)
_ZH_HABIT: Final = re.compile(
    r"^(?:我们家|我們家|我们|我們|我家|我)(?P<pre>(?:早上|上午|中午|下午|晚上|周末|週末|平时|平時|工作日|夜里|夜裡)?)"
    r"(?P<adv>每天|每日|每晚|每周|每週|每个?月|每個?月|每个?星期|每個?星期|每个?礼拜"
    r"|每個?禮拜|每个?周末"
    r"|每個?週末|每年|通常|一般|平时|平時|平常|总是|總是|经常|經常|常常|往往|向来|向來"
    r"|从来|從來|从不|從不|习惯|習慣|一直)(?P<rest>.+)$"
)
_ZH_EVERY_FIRST: Final = re.compile(
    r"^(?P<when>每[^我，,]{1,10}|周末|週末|工作日|平时|平時)[，,]?\s*"
    r"(?P<subj>我们|我們|我)(?P<rest>.+)$"
)
_ZH_LIVE: Final = re.compile(
    r"^(?P<who>我们家|我們家|我家|我们|我們|我)(?:现在|現在|目前)?住在.+$"
)
_ZH_WORK: Final = re.compile(
    r"^我(?:现在|現在|目前)?(?:改|已经|已經)?在[^，,]+?(?:工作|上班|(?P<job>做|当|當)[^，,]+)了?$"
)
_ZH_DIET: Final = re.compile(
    r"^我(?:是|是个|是個|是一个|是一個|是一名)?(?:素食者|素食主义者|素食主義者|吃素的?)$"
    r"|^我(?:只)?吃素"
)
_ZH_AVOID: Final = re.compile(r"^我(?:从来|從來)?不(?:能)?(?:吃|喝)(?P<x>[^，,]+)$")
_ZH_AGE: Final = re.compile(
    r"^我今年[\d一二两兩三四五六七八九十百]+岁了?$|^我今年[\d一二两兩三四五六七八九十百]+歲了?$"
)
_ZH_HAVE_COUNT: Final = re.compile(
    r"^(?P<who>我们家|我們家|我家|我)有(?:[\d一二两兩三四五六七八九十]+)"
    r"(?:个|個|只|隻|条|條|位|辆|輛|台)(?P<x>[^，,]{1,8})$"
)
_ZH_REMEMBER: Final = re.compile(
    r"^(?:请你?|請你?|麻烦你?|麻煩你?|你)?(?:要|得|帮我|幫我|替我|给我|給我)*"
    r"(?:记住|記住|记下来|記下來|记下|記下|记一下|記一下|记录一下|記錄一下|记着|記著|记得"
    r"|記得|牢记|牢記|千万别忘了|千萬別忘了|别忘了|別忘了|别忘记|別忘記|不要忘了|不要忘记"
    r"|不要忘記|别忘|別忘)(?:一下)?(?:这个|這個|这件事|這件事)?[，,：:\s]*(?P<x>.+)$"
)
_ZH_PLACE_END: Final = (
    "里", "裡", "里面", "裡面", "下面", "下边", "下邊", "上面", "上边", "上邊", "旁边",
    "旁邊", "后面", "後面", "前面", "底下", "抽屉", "抽屜", "柜", "櫃", "箱", "盒", "上", "下",
)  # fmt: skip
_ZH_LOCATION: Final = re.compile(
    r"^(?P<owner>我的|我们家的?|我們家的?|我家的?)?(?P<x>[^我你您他她它这這那谁誰哪，,是在"
    r"\d]{1,12}?)(?:都|也|一直|一般|通常|平时|平時)?(?P<verb>放|藏|收|存|挂|掛|摆|擺|锁|鎖"
    r"|停|插)?在(?P<y>[^，,]{2,24})$"
)
_ZH_PUT: Final = re.compile(
    r"^(?P<owner>我们|我們|我)(?:都|一般|通常|平时|平時)?把(?P<x>[^，,]{1,12}?)(?:放|藏|收|存"
    r"|挂|掛|摆|擺|锁|鎖|停)在(?P<y>[^，,]{2,24}?)了?$"
)
# Places said in the middle: "楼梯下面的储物间", "衣柜最上面那层".
_ZH_PLACE_INSIDE: Final = re.compile(
    "(?:里|裡|下面|上面|旁边|旁邊|后面|後面|底下)的|那?[层層格]$|[间間房室]$"
)
_ZH_MEMBER: Final = re.compile(
    r"^(?:(?P<owner>我们家的?|我們家的?|我家的?|我们的|我們的|我的|我)(?P<rel>"
    + "|".join((*_ZH_RELATIONS, *_ZH_PETS))
    + r")|(?P<kin>"
    + "|".join(_ZH_KIN)
    + r"))(?P<rest>[^，,]{2,}.*)$"
)
# What follows a household member that is not a fact about them.
_ZH_MEMBER_NOT: Final = re.compile(
    r"^(?:的|是|叫|说|說|刚|剛|想|要|觉得|覺得|问|問|告诉|告訴)|[“”「」\"':：]"
)
_ZH_NAME_THEN: Final = re.compile(
    rf"^(?P<name>[{_HAN}]{{1,3}}?)(?=对|對|有|不|每|在|住|是|很|喜|爱|愛|怕|会|會)"
)
_ZH_ABOUT_ME: Final = re.compile(
    r"^我(?:也|还|還)?(?:是(?!说|說|不是)(?!.*(?:的话|的話))"
    r"|在[^，,]{1,10}?(?:长大|長大|出生|读书|讀書|上学|上學|读过|讀過)"
    r"|会说|會說|会讲|會講|会弹|會彈|讲|講|开(?=一|辆|輛|台)|開(?=一|辆|輛|台)"
    r"|有(?!点|點|事|空|时间|時間|一点|一點|没有|沒有)|养|養|骑|騎"
    r"|老家|家乡|家鄉|(?:开|開|骑|騎|用|戴)的是|穿(?=[^，,]*[码碼号號])"
    r"|(?:的)?(?:血糖|血压|血壓|胆固醇|膽固醇|尿酸|视力|視力|听力|聽力|膝盖|膝蓋|心脏|心臟)"
    r"(?=[^，,]*(?:高|低|不好|差|有问题|有問題)))"
    r"[^，,]*(?:[，,].*)?$"
)
# Commands start with what to do: "把空调……", "帮我……", "打开……".
_ZH_COMMAND_START: Final = (
    "把", "帮", "幫", "请", "請", "给", "給", "打开", "打開", "关", "關", "播放", "放",
    "定", "设", "設", "叫", "提醒", "调", "調", "开", "開",
)  # fmt: skip
# "Here" is where a voice device is, not a place to remember; device commands that
# end in a place ("关闭遮阳蓬在这里") are not where something is kept.
_ZH_HERE: Final = ("这里", "這裡", "这儿", "這兒", "这边", "這邊")
_ZH_DEVICE_COMMAND: Final = (
    "打开", "打開", "关闭", "關閉", "关掉", "關掉", "关上", "關上", "开启", "開啟",
    "启动", "啟動", "播放", "暂停", "暫停", "取消", "设置", "設置", "设定", "設定",
)  # fmt: skip
_ZH_THING_ROUTINE: Final = re.compile(r"^(?!我)[^，,]{0,12}?(?:每|通常|总是|總是)")
_ZH_THING_EVENT: Final = re.compile(
    # "明天早上六点半叫我起床" asks the assistant to act: not about a thing
    r"^(?!.*(?:叫我|帮我|幫我|提醒我|告诉我|告訴我))(?![我你您他她它这這那])[^，,]{1,8}?(?:今天|明天|后天|後天|下周|下週|下个|下個"
    r"|周[一二三四五六日天]|星期[一二三四五六日天]|礼拜[一二三四五六日天]|禮拜[一二三四五六日天]"
    r"|在?[\d一二三四五六七八九十]+[号號]|[\d一二三四五六七八九十]+月"
    r"|(?:早上|上午|中午|下午|晚上)[\d一二两兩三四五六七八九十]+[点點])"
)
# Plans of one's own: "我下周不上班", "我下禮拜要出差".
_ZH_MY_PLAN: Final = re.compile(
    r"^我(?:今天|明天|后天|後天|下周|下週|下个?星期|下個?星期|下个?礼拜|下個?禮拜|下禮拜"
    r"|下礼拜|下个?月|下個?月|周末|週末)[^，,]{2,}$"
)
# Lessons on a weekday are weekly: "我周二晚上要上瑜伽课".
_ZH_WEEKLY_LESSON: Final = re.compile(
    r"^我(?:每)?(?:周|週|星期|礼拜|禮拜)[一二三四五六日天][^，,]{0,6}?上[^，,]{1,8}[课課]$"
)
# How one gets to work: "我每天坐七点四十五的地铁", later "我改坐八点十分的地铁了".
_ZH_COMMUTE: Final = re.compile(
    r"^我(?:每天|平时|平時|一般|通常)?(?:改)?(?:坐|搭|乘)[^，,]*?(?P<how>地铁|地鐵|捷运|捷運"
    r"|公交车?|公车|公車|巴士|火车|火車|高铁|高鐵|班车|班車|轮渡|輪渡)[^，,]*$"
)
_ZH_LIKE_LATER: Final = re.compile(
    r"^(?P<before>[^，,]{0,10}?)(?P<subj>我们家|我們家|我)(?P<middle>[^，,]{0,8}?)"
    + _ZH_PRE
    + r"(?P<verb>喜欢|喜歡|爱|愛|偏爱|偏愛)(?P<x>[^，,].*)$"
)
_ZH_SARCASM: Final = re.compile("可太|简直|簡直|爱死|愛死|太好了|真棒|又")
_ZH_STATEMENT_MARK: Final = re.compile("是|在|有|叫|会|會|要|的|了|过|過|用户")
_ZH_NOT_OBJECT_START: Final = "你您他她它这這那"
_ZH_CONTRAST: Final = re.compile("[，,]?(?:但是|但|可是|不过|不過)")
_EN_CONTRAST: Final = re.compile(r",?\s+but\s+", re.IGNORECASE)
_ZH_TRANSIENT_START: Final = ("不", "没", "沒", "坏", "壞", "很", "太", "有点", "有點")
_EN_NOT_OBJECT: Final = re.compile(
    r"^(?:that|this|these|those|you|it(?!\s+when\b))\b", re.IGNORECASE
)
_OBJECT_FILLER: Final = frozenset(
    "much lot lots so very really too here there now".split()
)

_Draft = tuple[str, str, str | None]


def _meaningful(text: str) -> bool:
    keywords = extract_keywords(text)
    words = [word for word in keywords.words if word not in _OBJECT_FILLER]
    return bool(words or keywords.chinese)


def _cut_en(text: str) -> str:
    return _EN_CONTRAST.split(text, maxsplit=1)[0].strip(_TRAILING)


def _cut_zh(text: str) -> str:
    return _ZH_CONTRAST.split(text, maxsplit=1)[0].strip(_TRAILING)
