"""The user profile: a visible, editable Markdown document.

It says how to talk to the user: reply style, language, background. One file per scope
under `<folder>/prompts/memory/`: `PROFILE.md` for the household, `PROFILE.<user>.md`
for a user (see `profile_file_name` for user ids with other characters).
People edit it by hand; the engine adds bullets under the three sections when it hears
a preference (`profile_updates` finds them in what the user says).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
import hashlib
from pathlib import Path
import re
import threading
from typing import Final

from ..errors import InvalidMemoryError
from ..storage.durable import (
    make_private_folder,
    process_lock,
    storage_error,
    write_atomically,
)
from ..storage.models import HOUSEHOLD_SCOPE, validate_scope

PROFILE_DIR: Final = Path("prompts") / "memory"
PROFILE_FILE: Final = "PROFILE.md"
MAX_PROFILE_LENGTH: Final = 20_000
MAX_STATEMENT_LENGTH: Final = 500
SECTIONS: Final = {
    "reply_style": "Reply style",
    "language": "Language",
    "background": "Background",
}
DEFAULT_PROFILE: Final = "# Profile\n\n## Reply style\n\n## Language\n\n## Background\n"
_LOCK_FILE: Final = ".profile.lock"
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_-]")
# Hex digits of SHA-256 in a file name: 64 bits, no two user ids share one.
_DIGEST_LENGTH: Final = 16
_HEADING: Final = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET: Final = re.compile(r"^\s*[-*+]\s+(.*?)\s*$")


def profile_file_name(scope: str) -> str:
    """`PROFILE.md` for the household, `PROFILE.<user id>.md` for a user.

    A user id with characters outside `[A-Za-z0-9_-]` gets them replaced by `_`,
    followed by a digest of the exact id, so ids that read alike ("anna.smith",
    "anna_smith") never share a file.
    """
    scope = validate_scope(scope)
    if scope == HOUSEHOLD_SCOPE:
        return PROFILE_FILE
    readable = _UNSAFE.sub("_", scope)
    if readable == scope:
        return f"PROFILE.{scope}.md"
    digest = hashlib.sha256(scope.encode()).hexdigest()[:_DIGEST_LENGTH]
    return f"PROFILE.{readable}.{digest}.md"


def _former_file_name(scope: str) -> str | None:
    """Where a user id with replaced characters was kept before it had a digest."""
    readable = _UNSAFE.sub("_", scope)
    return None if readable == scope else f"PROFILE.{readable}.md"


class UserProfile:
    """The profile documents in a data folder; safe to use from several threads.

    Writes are atomic (temp file, fsync, rename) and serialised with other processes
    using the same folder.
    """

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        self.directory = self.folder / PROFILE_DIR
        self._lock = threading.RLock()

    def path(self, scope: str = HOUSEHOLD_SCOPE) -> Path:
        """The file of `scope` (it may not exist yet)."""
        return self.directory / profile_file_name(scope)

    def exists(self, scope: str = HOUSEHOLD_SCOPE) -> bool:
        """True when the scope has its own profile file."""
        return self._adopted(scope).is_file()

    def read(self, scope: str = HOUSEHOLD_SCOPE) -> str:
        """The profile text, or the empty template when there is none yet."""
        path = self._adopted(scope)
        try:
            return path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return DEFAULT_PROFILE
        except OSError as err:
            raise storage_error(err, path) from err

    def _adopted(self, scope: str) -> Path:
        """The scope's file, first copied from its former name if it was kept there.

        Ids that read alike shared the former name, so the file stays where it is
        (it is also the name of the id it spells) and each id gets its own copy.
        """
        path = self.path(scope)
        former_name = _former_file_name(scope)
        if former_name is None or path.exists():
            return path
        former = self.directory / former_name
        with self._exclusive():
            try:
                text = former.read_text(encoding="utf-8", errors="replace")
            except FileNotFoundError:
                return path
            except OSError as err:
                raise storage_error(err, former) from err
            if not path.exists():
                write_atomically(path, [text])
        return path

    def write(self, scope: str, text: str) -> None:
        """Replace the profile text (atomically).

        Raises InvalidMemoryError (`invalid_profile`, `profile_too_long`,
        `invalid_scope`).
        """
        text = validate_profile_text(text)
        path = self.path(scope)
        with self._exclusive():
            write_atomically(path, [text])

    def delete(self, scope: str = HOUSEHOLD_SCOPE) -> bool:
        """Remove the scope's profile (reading it then gives the template again)."""
        path = self._adopted(scope)
        former_name = _former_file_name(scope)
        with self._exclusive():
            if former_name and (self.directory / former_name).exists():
                # The template, not no file: the former one is another id's now.
                existed = path.exists()
                write_atomically(path, [DEFAULT_PROFILE])
                return existed
            try:
                path.unlink()
            except FileNotFoundError:
                return False
            except OSError as err:
                raise storage_error(err, path) from err
            return True

    def note_preference(self, scope: str, section: str, statement: str) -> bool:
        """Add `- statement` under a section unless an equal bullet is there.

        `section` is "reply_style", "language" or "background"; a missing section is
        added at the end. Bullets compare case-insensitively with whitespace
        normalised. A statement `profile_updates` produces also replaces the ones it
        contradicts ("Keep answers short" replaces "Give detailed answers", a new
        "Reply in ..." replaces the old one); bullets people wrote themselves stay.
        Returns whether the document changed.
        """
        heading = _section_heading(section)
        statement = _validate_statement(statement)
        path = self._adopted(scope)
        with self._exclusive():
            current = self.read(scope)
            updated = add_bullet(current, heading, statement)
            if updated == current:
                return False
            write_atomically(path, [validate_profile_text(updated)])
            return True

    @contextmanager
    def _exclusive(self) -> Iterator[None]:
        with self._lock:
            make_private_folder(self.directory)
            with process_lock(self.directory / _LOCK_FILE):
                yield


def validate_profile_text(value: object) -> str:
    """Profile text: at most 20 000 characters, no NUL."""
    if not isinstance(value, str) or "\x00" in value:
        raise InvalidMemoryError(
            "invalid_profile", "the profile must be text", field="text"
        )
    if len(value) > MAX_PROFILE_LENGTH:
        raise InvalidMemoryError.too_long(
            "profile_too_long", "the profile", len(value), MAX_PROFILE_LENGTH
        )
    return value


def _section_heading(section: str) -> str:
    heading = SECTIONS.get(section)
    if heading is None:
        raise InvalidMemoryError(
            "unknown_profile_section",
            f"unknown profile section {section!r}; use one of: {', '.join(SECTIONS)}",
            section=section,
            sections=", ".join(SECTIONS),
        )
    return heading


def _validate_statement(value: object) -> str:
    text = " ".join(value.split()) if isinstance(value, str) else ""
    if not text or len(text) > MAX_STATEMENT_LENGTH:
        raise InvalidMemoryError(
            "invalid_statement",
            f"a statement is non-empty text of at most {MAX_STATEMENT_LENGTH} characters",
            field="statement",
        )
    return text


def _normal(text: str) -> str:
    return " ".join(text.split()).casefold()


def add_bullet(text: str, heading: str, statement: str) -> str:
    """`text` with `- statement` under `## heading` (see `note_preference`)."""
    lines = text.splitlines()
    wanted = _normal(statement)
    start = _find_section(lines, heading)
    if start is None:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += ["", f"## {heading}", "", f"- {statement}"]
        return "\n".join(lines).lstrip("\n") + "\n"
    end = _section_end(lines, start)
    present = False
    kept: list[str] = []
    for line in lines[start + 1 : end]:
        bullet = _BULLET.match(line)
        if bullet is not None:
            value = _normal(bullet.group(1))
            if value == wanted:
                present = True
            elif replaces(statement, value):
                continue
        kept.append(line)
    if present and len(kept) == end - start - 1:
        return text
    if not present:
        last = max((i for i, line in enumerate(kept) if line.strip()), default=None)
        if last is None:  # an empty section: only blank lines
            kept = ["", f"- {statement}"] + ([""] if end < len(lines) else [])
        else:
            kept.insert(last + 1, f"- {statement}")
    lines[start + 1 : end] = kept
    return "\n".join(lines) + "\n"


def _find_section(lines: list[str], heading: str) -> int | None:
    wanted = _normal(heading)
    for index, line in enumerate(lines):
        match = _HEADING.match(line)
        if (
            match is not None
            and len(match.group(1)) == 2
            and _normal(match.group(2).replace("_", " ")) == wanted
        ):
            return index
    return None


def _section_end(lines: list[str], start: int) -> int:
    for index in range(start + 1, len(lines)):
        match = _HEADING.match(lines[index])
        if match is not None and len(match.group(1)) <= 2:
            return index
    return len(lines)


# -- recognising profile statements in what the user says ----------------------------


@dataclass(frozen=True, slots=True)
class _Rule:
    section: str
    pattern: re.Pattern[str]
    statement: (
        str  # a fixed line, a format string of the groups, or "simplified|traditional"
    )
    self_talk_check: bool = False  # skip "I'll be brief": the speaker about themselves
    # How the groups are written: as typed, "lower" case, "title" case, "job" (an
    # occupation: "Works as a nurse" / "Is a student"), "name" (an employer).
    form: str = "keep"


def _en(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_LANGUAGES_EN: Final = (
    "simplified chinese|traditional chinese|chinese|mandarin|cantonese|english|"
    "japanese|korean|french|german|spanish|italian|portuguese|russian|dutch|"
    "swedish|arabic|hindi|vietnamese|thai"
)
_JOBS_EN: Final = (
    "nurse|doctor|physician|surgeon|dentist|pharmacist|paramedic|vet|veterinarian|"
    "therapist|psychologist|teacher|professor|lecturer|tutor|student|engineer|"
    "developer|programmer|designer|architect|lawyer|attorney|accountant|chef|cook|"
    "baker|driver|farmer|electrician|plumber|carpenter|mechanic|firefighter|"
    "police officer|scientist|researcher|writer|journalist|editor|artist|musician|"
    "photographer|manager|consultant|cashier|waiter|waitress|pilot|librarian|"
    "social worker|analyst|entrepreneur|freelancer|retiree|homemaker|soldier|"
    "translator|carer|caregiver|midwife|cleaner|receptionist|salesperson"
)
# Who someone is rather than where they work: "Is a student", not "Works as a student".
_NOT_JOBS: Final = frozenset({"student", "retiree", "homemaker", "freelancer"})
_WORKPLACES_EN: Final = (
    "hospital|clinic|school|university|college|bank|factory|office|restaurant|hotel|"
    "shop|store|supermarket|pharmacy|lab|laboratory|library|kindergarten|startup|"
    "company|firm|farm|bakery|garage|warehouse|airport|museum|nursing home|"
    "care home|call center|call centre|law firm|tech company"
)
_FIELDS_EN: Final = (
    "it|tech|technology|healthcare|health care|finance|banking|insurance|education|"
    "marketing|sales|retail|construction|hospitality|law|research|software|"
    "government|nursing|medicine|engineering|logistics|manufacturing|real estate|"
    "media|advertising|accounting|hr|human resources|customer service|agriculture"
)
_ACRONYMS: Final = frozenset({"it", "hr"})
_END_EN: Final = r"(?=\s*(?:$|[,.!;:]|\s(?:at|in|for|and|so|but|by|from|with|now)\b))"
_NOT_EMPLOYERS: Final = frozenset(
    {
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
        "christmas",
        "easter",
        "night",
        "home",
        "noon",
        "midnight",
    }
)

_LANGUAGES_ZH: Final = (
    "简体中文|簡體中文|繁体中文|繁體中文|简体|簡體|繁体|繁體|中文|汉语|漢語|普通话|普通話|"
    "国语|國語|粤语|粵語|广东话|廣東話|英文|英语|英語|日文|日语|日語|韩文|韓文|韩语|韓語|"
    "法语|法語|德语|德語|西班牙语|西班牙語"
)
_JOBS_ZH: Final = (
    "护士|護士|医生|醫生|大夫|医师|醫師|药剂师|藥劑師|老师|老師|教师|教師|教授|学生|學生|"
    "研究生|工程师|工程師|程序员|程序員|程式設計師|设计师|設計師|律师|律師|会计|會計|"
    "司机|司機|厨师|廚師|农民|農民|警察|军人|軍人|记者|記者|作家|画家|畫家|演员|演員|"
    "经理|經理|公务员|公務員|电工|電工|科学家|科學家|研究员|研究員|自由职业者|自由職業者|"
    "快递员|快遞員|外卖员|外賣員|服务员|服務員|店员|店員|飞行员|飛行員|兽医|獸醫|"
    "家庭主妇|家庭主婦|全职妈妈|全職媽媽|全职爸爸|全職爸爸|销售|銷售|翻译|翻譯|保安"
)
# The last character of a workplace: 医院, 学校, 公司, 银行, 工厂, 家...
_PLACE_END_ZH: Final = "院校学學司厂廠局所行店馆館部室心家里裡府构構业業位团團站场場社处處厅廳台臺科组組队隊园園"
_CLAUSE_END_ZH: Final = r"(?=$|[。！!，,.；;\s~～]|吧|啦|呀|啊|哦|喔|呢|哈)"
_CLAUSE_END_REQUEST_ZH: Final = (
    r"(?=$|[。！!，,.；;\s~～]|吧|啦|哦|喔|好吗|好嗎|可以吗|可以嗎|行吗|行嗎)"
)
_TRADITIONAL: Final = frozenset("簡潔點說講話詳細語氣輕鬆隨覆麼囉嘮體漢國廣東韓禮貌潑")

_RULES: Final = (
    # -- reply style, English
    _Rule(
        "reply_style",
        _en(
            r"\b(?:keep|make)\s+(?:your\s+|the\s+|all\s+|my\s+)?"
            r"(?:answers?|repl(?:y|ies)|responses?)\s+"
            r"(?:short|shorter|brief|briefer|concise)\b"
        ),
        "Keep answers short",
    ),
    _Rule(
        "reply_style",
        _en(r"\bbe\s+(?:more\s+)?(?:brief|concise|succinct|terse)\b"),
        "Keep answers short",
        self_talk_check=True,
    ),
    _Rule(
        "reply_style",
        _en(
            r"\b(?:short|shorter|brief|briefer|concise)\s+(?:answers|replies|responses)\b"
        ),
        "Keep answers short",
    ),
    _Rule(
        "reply_style",
        _en(r"\b(?:answer|reply|respond)\s+(?:briefly|concisely|in\s+short)\b"),
        "Keep answers short",
    ),
    _Rule(
        "reply_style",
        _en(r"\b(?:be\s+)?less\s+(?:verbose|wordy|chatty|long-winded)\b"),
        "Keep answers short",
        self_talk_check=True,
    ),
    _Rule(
        "reply_style",
        _en(
            r"\b(?:answer|reply|respond)\s+(?:in\s+(?:more\s+|full\s+|great\s+)?detail"
            r"|at\s+length|thoroughly|in\s+depth)\b"
        ),
        "Give detailed answers",
    ),
    _Rule(
        "reply_style",
        _en(
            r"\b(?:longer|more\s+detailed|detailed|fuller|in-depth)\s+"
            r"(?:answers|replies|responses|explanations)\b"
        ),
        "Give detailed answers",
    ),
    _Rule(
        "reply_style",
        _en(r"\bbe\s+more\s+(?:detailed|thorough)\b"),
        "Give detailed answers",
        self_talk_check=True,
    ),
    _Rule(
        "reply_style",
        _en(
            r"\b(?:be|sound|speak|talk|write|answer|reply)\s+"
            r"(?:a\s+bit\s+|a\s+little\s+)?(?:more\s+)?formal(?:ly)?\b"
        ),
        "Use a formal tone",
        self_talk_check=True,
    ),
    _Rule(
        "reply_style",
        _en(
            r"\b(?:use|with|in)\s+(?:a\s+)?(?:more\s+)?formal\s+"
            r"(?:tone|language|style|register)\b"
        ),
        "Use a formal tone",
    ),
    _Rule(
        "reply_style",
        _en(
            r"\b(?:be|sound|speak|talk|write|answer|reply)\s+"
            r"(?:a\s+bit\s+|a\s+little\s+)?(?:more\s+)?"
            r"(?:casual(?:ly)?|informal(?:ly)?|relaxed)\b"
        ),
        "Use a casual tone",
        self_talk_check=True,
    ),
    _Rule(
        "reply_style",
        _en(
            r"\b(?:use|with|in)\s+(?:a\s+)?(?:more\s+)?(?:casual|informal|relaxed)\s+"
            r"(?:tone|language|style)\b"
        ),
        "Use a casual tone",
    ),
    # -- reply style, Chinese
    _Rule(
        "reply_style",
        re.compile(
            r"(?:回答|回复|回覆|答案|说话|說話|讲话|講話|说|說|讲|講|话|話)(?:得|的)?"
            r"(?:再|尽量|盡量|更|稍微)?(?:简短|簡短|简洁|簡潔|短)一?(?:点|點|些)"
        ),
        "回答要简短|回答要簡短",
    ),
    _Rule(
        "reply_style",
        re.compile(
            r"(?:^|[，,。！!\s])(?:请|請)?(?:简短|簡短|简洁|簡潔)一?(?:点|點|些)"
        ),
        "回答要简短|回答要簡短",
    ),
    _Rule(
        "reply_style",
        re.compile(
            r"(?:不要|别|別|少)(?:那么|那麼|太)?(?:啰嗦|囉嗦|啰唆|囉唆|唠叨|嘮叨)"
        ),
        "回答要简短|回答要簡短",
    ),
    _Rule(
        "reply_style",
        re.compile(
            r"(?:回答|回复|回覆|说|說|讲|講|解释|解釋)(?:得)?(?:再|更|尽量|盡量)?"
            r"(?:详细|詳細|具体|具體)一?(?:点|點|些)"
        ),
        "回答要详细|回答要詳細",
    ),
    _Rule(
        "reply_style",
        re.compile(r"(?:^|[，,。！!\s])(?:请|請)?(?:详细|詳細)一?(?:点|點|些)"),
        "回答要详细|回答要詳細",
    ),
    _Rule(
        "reply_style",
        re.compile(
            r"(?:用|以)(?:更)?(?:正式|礼貌|禮貌)一?(?:点|點|些)?的?"
            r"(?:语气|語氣|口吻|语言|語言|方式)"
        ),
        "语气要正式|語氣要正式",
    ),
    _Rule(
        "reply_style",
        re.compile(
            r"(?:语气|語氣|口吻|说话|說話)(?:再|更)?(?:正式|礼貌|禮貌)一?(?:点|點|些)"
        ),
        "语气要正式|語氣要正式",
    ),
    _Rule(
        "reply_style",
        re.compile(
            r"(?:用|以)(?:更)?(?:随意|隨意|轻松|輕鬆|随便|隨便|口语化|口語化|活泼|活潑)"
            r"一?(?:点|點|些)?的?(?:语气|語氣|口吻|语言|語言|方式)"
        ),
        "语气要轻松随意|語氣要輕鬆隨意",
    ),
    _Rule(
        "reply_style",
        re.compile(
            r"(?:语气|語氣|口吻|说话|說話)(?:再|更)?"
            r"(?:随意|隨意|轻松|輕鬆|随便|隨便|口语化|口語化|活泼|活潑)一?(?:点|點|些)"
        ),
        "语气要轻松随意|語氣要輕鬆隨意",
    ),
    # -- language, English
    _Rule(
        "language",
        _en(
            r"\b(?:speak|talk|reply|respond|answer|write|communicate)\s+"
            rf"(?:to\s+me\s+|with\s+me\s+)?in\s+({_LANGUAGES_EN})\b"
        ),
        "Reply in {0}",
        form="title",
    ),
    _Rule(
        "language",
        _en(rf"\b(?:speak|talk)\s+({_LANGUAGES_EN})\s+(?:to|with)\s+me\b"),
        "Reply in {0}",
        form="title",
    ),
    _Rule(
        "language",
        _en(rf"\b(?:switch|change)\s+(?:the\s+language\s+)?to\s+({_LANGUAGES_EN})\b"),
        "Reply in {0}",
        form="title",
    ),
    _Rule(
        "language",
        _en(rf"\buse\s+({_LANGUAGES_EN})\s+(?:with\s+me|from\s+now\s+on)\b"),
        "Reply in {0}",
        form="title",
    ),
    # -- language, Chinese
    _Rule(
        "language",
        re.compile(
            rf"(?:用|使用|改用|换成|換成|改成)({_LANGUAGES_ZH})"
            r"(?:来|來|跟我|和我|同我|与我|與我)?"
            r"(?:回答|回复|回覆|答复|答覆|交流|说话|說話|讲话|講話|聊天|对话|對話|沟通|溝通"
            r"|说|說|讲|講|聊)?我?" + _CLAUSE_END_REQUEST_ZH
        ),
        "用{0}回答",
    ),
    _Rule(
        "language",
        re.compile(
            rf"(?:跟|和|对|對|同|与|與)我(?:说|說|讲|講|聊)({_LANGUAGES_ZH})"
            + _CLAUSE_END_REQUEST_ZH
        ),
        "用{0}回答",
    ),
    # -- background, English
    _Rule(
        "background",
        _en(
            r"\b(?:i'm|i’m|i\s+am|im)\s+(?:a|an)\s+"
            rf"((?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN})){_END_EN}"
        ),
        "",
        form="job",
    ),
    _Rule(
        "background",
        _en(
            r"\bi\s+work\s+as\s+(?:a|an)\s+([a-z][a-z -]{1,40}?)"
            r"(?=\s*(?:$|[,.!;:?]|\s(?:at|in|for|and|so|but|now)\b))"
        ),
        "Works as {article} {0}",
        form="lower",
    ),
    _Rule(
        "background",
        _en(
            r"\bi\s+work\s+(?:at|in|for)\s+"
            rf"((?:a|an|the)\s+(?:{_WORKPLACES_EN})){_END_EN}"
        ),
        "Works at {0}",
        form="lower",
    ),
    _Rule(
        "background",
        re.compile(
            r"\b[Ii]\s+work\s+(?:at|for)\s+([A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})"
            r"(?=\s*(?:$|[,.!;:?]|\s(?:as|and|so|but|now|in)\b))"
        ),
        "Works at {0}",
        form="name",
    ),
    _Rule(
        "background",
        _en(rf"\bi\s+work\s+in\s+({_FIELDS_EN}){_END_EN}"),
        "Works in {0}",
        form="lower",
    ),
    _Rule(
        "background",
        _en(r"\b(?:i'm|i’m|i\s+am|im)\s+(?:now\s+)?retired\b"),
        "Is retired",
    ),
    # -- background, Chinese
    _Rule(
        "background",
        re.compile(
            r"我是((?:一名|一个|一個|一位|个|個|名|位)?"
            r"(?![说說问問想不在要去谁誰什甚])[\u4e00-\u9fff]{0,4}?"
            rf"(?:{_JOBS_ZH})){_CLAUSE_END_ZH}"
        ),
        "是{0}",
    ),
    _Rule(
        "background",
        re.compile(
            r"我(?:现在|現在|目前|一直)?在((?![哪])[\u4e00-\u9fffA-Za-z0-9]{0,11}"
            rf"(?:[{_PLACE_END_ZH}]|[A-Za-z0-9]))(工作|上班|任职|任職)" + _CLAUSE_END_ZH
        ),
        "在{0}{1}",
    ),
    _Rule(
        "background",
        re.compile(r"我(?:已经|已經)?退休了"),
        "已退休",
    ),
)

# Text just before a match that means it is not a wish: negations and hypotheticals.
_NEGATED_EN: Final = re.compile(
    r"(?:\b(?:don't|don’t|do\s+not|dont|never|not|no\s+need\s+to)\s+(?:\w+\s+){0,1}$)"
    r"|\b(?:if|suppose|pretend|imagine|whether)\b",
    re.IGNORECASE,
)
_NEGATED_ZH: Final = re.compile(
    r"(?:不要|不用|别|別|不必|无需|無需)$|如果|假如|假设|假設"
)
_SELF_TALK: Final = re.compile(
    r"\b(?:i|i'll|i’ll|i\s+will|i'd|i’d|i\s+would|we|we'll|we\s+will|i'm|i’m|i\s+am)"
    r"\s+(?:\w+\s+){0,2}$",
    re.IGNORECASE,
)
_LOOKBACK: Final = 24


def profile_updates(text: str) -> list[tuple[str, str]]:
    """The profile statements in what the user said, as (section, statement).

    Recognises, in English and Chinese: reply style (short / detailed answers, a
    formal / casual tone), the reply language, and background (occupation,
    workplace, retired). Statements are tidy lines without a subject, in the
    user's language: ("reply_style", "Keep answers short"), ("language", "Reply in
    Chinese"), ("background", "Works as a nurse"), ("background", "是一名护士").
    Precise rather than greedy: questions, negations ("don't be brief") and
    hypotheticals ("if I were ...") give nothing.
    """
    if not isinstance(text, str) or not text.strip():
        return []
    found: list[tuple[int, str, str]] = []
    for rule in _RULES:
        for match in rule.pattern.finditer(text):
            before = text[max(0, match.start() - _LOOKBACK) : match.start()]
            if _NEGATED_EN.search(before) or _NEGATED_ZH.search(before):
                continue
            if rule.self_talk_check and _SELF_TALK.search(before):
                continue
            statement = _statement(rule, match)
            if statement:
                found.append((match.start(), rule.section, statement))
    found.sort(key=lambda item: item[0])
    results: list[tuple[str, str]] = []
    seen: set[str] = set()
    for _, section, statement in found:
        if _normal(statement) not in seen:
            seen.add(_normal(statement))
            results.append((section, statement))
    return results


def _statement(rule: _Rule, match: re.Match[str]) -> str:
    template = rule.statement
    if "|" in template:  # simplified | traditional Chinese
        simplified, traditional = template.split("|")
        return traditional if _TRADITIONAL.intersection(match.group(0)) else simplified
    groups = [" ".join(group.split()) for group in match.groups()]
    match rule.form:
        case "job":
            return _job_statement(groups[0].lower())
        case "title":
            groups = [group.title() for group in groups]
        case "lower":
            groups = [
                group.upper() if group.lower() in _ACRONYMS else group.lower()
                for group in groups
            ]
        case "name" if groups[0].lower() in _NOT_EMPLOYERS:
            return ""
    article = "an" if groups and groups[0][:1].lower() in "aeiou" else "a"
    return template.format(*groups, article=article)


def _job_statement(job: str) -> str:
    """A job as a statement: "Works as a night nurse", "Is a student"."""
    words = job.split()
    article = "an" if job[:1] in "aeiou" else "a"
    if words[-1] in _NOT_JOBS or words[0] in {"retired", "former", "ex"}:
        return f"Is {article} {job}"
    return f"Works as {article} {job}"


# Statements `profile_updates` writes that exclude one another.
_EXCLUSIVE_GROUPS: Final = (
    frozenset(
        {"keep answers short", "give detailed answers"}
        | {"回答要简短", "回答要簡短", "回答要详细", "回答要詳細"}
    ),
    frozenset(
        {"use a formal tone", "use a casual tone"}
        | {"语气要正式", "語氣要正式", "语气要轻松随意", "語氣要輕鬆隨意"}
    ),
)
_LANGUAGE_STATEMENT: Final = re.compile(
    rf"^(?:reply in (?:{_LANGUAGES_EN})|用(?:{_LANGUAGES_ZH})回答)$", re.IGNORECASE
)
# Background statements of one kind: a newer one replaces the older (a new job, a
# new workplace, a new field), as the memory of the same fact is replaced.
_BACKGROUND_KINDS: Final = (
    re.compile(
        rf"^(?:works as (?:a|an) .+|is (?:a|an) (?:[a-z-]+ ){{0,2}}(?:{_JOBS_EN})"
        r"|is retired|已退休"
        r"|是(?:一名|一个|一個|一位|个|個|名|位)?[\u4e00-\u9fff]{0,4}?"
        rf"(?:{_JOBS_ZH}))$"
    ),
    re.compile(r"^(?:works at .+|在.+(?:工作|上班|任职|任職))$"),
    re.compile(rf"^works in (?:{_FIELDS_EN})$"),
)


def replaces(new: str, old: str) -> bool:
    """True when statement `new` contradicts the older statement `old`.

    Only statements `profile_updates` writes contradict one another: short against
    detailed answers, formal against casual tone, one reply language against
    another, and in the background one job, workplace or field against another.
    Anything else people wrote themselves is never replaced.
    """
    new, old = _normal(new), _normal(old)
    if new == old:
        return False
    if any(new in group and old in group for group in _EXCLUSIVE_GROUPS):
        return True
    kinds = (_LANGUAGE_STATEMENT, *_BACKGROUND_KINDS)
    return any(kind.match(new) and kind.match(old) for kind in kinds)
