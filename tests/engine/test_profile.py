"""The user profile document and recognising profile statements."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from custom_components.assist_memory.engine import InvalidMemoryError, StorageError
from custom_components.assist_memory.engine.conversation.profile import (
    DEFAULT_PROFILE,
    MAX_PROFILE_LENGTH,
    UserProfile,
    add_bullet,
    profile_file_name,
    profile_updates,
    replaces,
)


@pytest.fixture
def profile(tmp_path: Path) -> UserProfile:
    return UserProfile(tmp_path)


def section_of(text: str, heading: str) -> list[str]:
    """The non-blank lines under `## heading`."""
    lines = text.splitlines()
    start = lines.index(f"## {heading}") + 1
    body: list[str] = []
    for line in lines[start:]:
        if line.startswith("## "):
            break
        if line.strip():
            body.append(line)
    return body


# -- files and scopes -------------------------------------------------------------------------------


def test_default_template_when_nothing_is_stored(
    profile: UserProfile, tmp_path: Path
) -> None:
    text = profile.read()

    assert text == DEFAULT_PROFILE
    for heading in ("## Reply style", "## Language", "## Background"):
        assert heading in text
    assert len(text.splitlines()) <= 10
    assert not profile.exists()
    assert not (tmp_path / "prompts").exists()  # reading writes nothing


def test_paths_per_scope(profile: UserProfile, tmp_path: Path) -> None:
    folder = tmp_path / "prompts" / "memory"

    assert profile.path() == folder / "PROFILE.md"
    assert profile.path("household") == folder / "PROFILE.md"
    assert profile.path("abc123") == folder / "PROFILE.abc123.md"
    assert profile_file_name("user_1-x") == "PROFILE.user_1-x.md"
    # Other characters: the readable part, then a digest of the exact scope.
    odd = profile.path("a.b/c@d").name
    assert odd.startswith("PROFILE.a_b_c_d.")
    assert odd.endswith(".md")
    assert len(profile_file_name("用" * 200)) < 255


def test_scopes_that_look_alike_get_their_own_files(profile: UserProfile) -> None:
    scopes = ["anna.smith", "anna_smith", "anna@smith", "anna-smith", "Anna.smith"]
    for scope in scopes:
        profile.write(scope, f"# {scope}\n")

    assert [profile.read(scope) for scope in scopes] == [f"# {s}\n" for s in scopes]
    assert len({profile.path(scope) for scope in scopes}) == len(scopes)


def test_a_profile_kept_under_the_old_name_follows_its_scope(
    profile: UserProfile,
) -> None:
    # Before, "anna.smith" and "anna_smith" shared PROFILE.anna_smith.md.
    profile.directory.mkdir(parents=True)
    (profile.directory / "PROFILE.anna_smith.md").write_text("# Shared\n", "utf-8")

    assert profile.read("anna.smith") == "# Shared\n"
    profile.write("anna_smith", "# Anna underscore\n")
    profile.note_preference("anna.smith", "language", "Reply in German")

    assert profile.read("anna_smith") == "# Anna underscore\n"
    assert profile.read("anna.smith").startswith("# Shared\n")
    assert "- Reply in German" in profile.read("anna.smith")
    assert profile.delete("anna.smith") is True
    assert profile.read("anna.smith") == DEFAULT_PROFILE
    assert profile.read("anna_smith") == "# Anna underscore\n"


@pytest.mark.parametrize("scope", ["", "two words", "x" * 201, 5])
def test_invalid_scope(profile: UserProfile, scope: object) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        profile.read(scope)  # type: ignore[arg-type]

    assert err.value.code == "invalid_scope"


def test_write_and_read_per_scope(profile: UserProfile) -> None:
    profile.write("household", "# Household\n\n## Language\n\n- Reply in English\n")
    profile.write("alice", "# Alice\n\n## Background\n\n- Works as a nurse\n")

    assert profile.read() == "# Household\n\n## Language\n\n- Reply in English\n"
    assert profile.read("alice") == "# Alice\n\n## Background\n\n- Works as a nurse\n"
    assert profile.read("bob") == DEFAULT_PROFILE
    assert profile.exists("alice")
    assert not profile.exists("bob")
    assert profile.path("alice").read_text(encoding="utf-8").startswith("# Alice")


def test_write_is_atomic_and_leaves_no_temp_files(profile: UserProfile) -> None:
    profile.write("household", "first")
    profile.write("household", "second 中文")

    names = sorted(p.name for p in profile.directory.iterdir())
    assert names == [".profile.lock", "PROFILE.md"]
    assert profile.read() == "second 中文"


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("x" * (MAX_PROFILE_LENGTH + 1), "profile_too_long"),
        ("a\x00b", "invalid_profile"),
        (None, "invalid_profile"),
    ],
)
def test_invalid_profile_text(profile: UserProfile, text: object, code: str) -> None:
    profile.write("household", "kept")

    with pytest.raises(InvalidMemoryError) as err:
        profile.write("household", text)  # type: ignore[arg-type]

    assert err.value.code == code
    assert profile.read() == "kept"


def test_longest_profile_is_accepted(profile: UserProfile) -> None:
    profile.write("household", "x" * MAX_PROFILE_LENGTH)

    assert len(profile.read()) == MAX_PROFILE_LENGTH


def test_delete(profile: UserProfile) -> None:
    profile.write("alice", "mine")

    assert profile.delete("alice") is True
    assert profile.delete("alice") is False
    assert profile.read("alice") == DEFAULT_PROFILE


def test_storage_errors(tmp_path: Path) -> None:
    blocker = tmp_path / "prompts"
    blocker.write_text("a file where the folder should be")
    profile = UserProfile(tmp_path)

    with pytest.raises(StorageError):
        profile.write("household", "text")

    directory_instead = UserProfile(tmp_path / "other")
    directory_instead.path().mkdir(parents=True)  # a folder named PROFILE.md
    with pytest.raises(StorageError):
        directory_instead.read()
    with pytest.raises(StorageError):
        directory_instead.delete()


def test_a_file_with_bad_encoding_still_reads(profile: UserProfile) -> None:
    profile.directory.mkdir(parents=True)
    profile.path().write_bytes(b"## Language\n\n- \xff\xfe broken\n")

    assert "broken" in profile.read()


# -- note_preference ------------------------------------------------------------------------


def test_note_preference_adds_a_bullet_under_the_section(profile: UserProfile) -> None:
    assert profile.note_preference("household", "reply_style", "Keep answers short")

    text = profile.read()
    assert section_of(text, "Reply style") == ["- Keep answers short"]
    assert section_of(text, "Language") == []
    assert text.startswith("# Profile\n")
    assert text.endswith("\n")
    assert "\n\n\n" not in text


def test_note_preference_is_idempotent(profile: UserProfile) -> None:
    assert profile.note_preference("household", "background", "Works as a nurse")
    before = profile.read()

    assert not profile.note_preference("household", "background", "works as a NURSE")
    assert not profile.note_preference(
        "household", "background", " Works  as a\tnurse "
    )
    assert profile.read() == before


def test_note_preference_appends_after_existing_bullets(profile: UserProfile) -> None:
    profile.note_preference("alice", "background", "Works as a nurse")
    profile.note_preference("alice", "background", "Has two cats")
    profile.note_preference("alice", "language", "Reply in English")

    text = profile.read("alice")
    assert section_of(text, "Background") == ["- Works as a nurse", "- Has two cats"]
    assert section_of(text, "Language") == ["- Reply in English"]
    assert profile.read() == DEFAULT_PROFILE  # other scopes untouched


def test_note_preference_creates_a_missing_section(profile: UserProfile) -> None:
    profile.write("household", "# My notes\n\nI like it tidy.\n\n\n")

    assert profile.note_preference("household", "language", "用中文回答")

    assert profile.read() == (
        "# My notes\n\nI like it tidy.\n\n## Language\n\n- 用中文回答\n"
    )


def test_note_preference_into_an_empty_document(profile: UserProfile) -> None:
    profile.write("household", "")

    assert profile.note_preference("household", "background", "Works in IT")

    assert profile.read() == "## Background\n\n- Works in IT\n"


def test_note_preference_respects_hand_edited_sections(profile: UserProfile) -> None:
    profile.write(
        "household",
        "# Us\n\n## reply_style\n* Be warm\n\n### Details\nsub heading stays inside\n"
        "\n# Other\n- not a reply style bullet\n",
    )

    assert profile.note_preference("household", "reply_style", "Be warm") is False
    assert profile.note_preference("household", "reply_style", "Keep answers short")

    text = profile.read()
    lines = text.splitlines()
    assert (
        lines.index("- Keep answers short")
        == lines.index("sub heading stays inside") + 1
    )
    assert text.endswith("# Other\n- not a reply style bullet\n")


def test_conflicting_statements_replace_each_other(profile: UserProfile) -> None:
    profile.note_preference("household", "reply_style", "Keep answers short")
    profile.note_preference("household", "reply_style", "Use a formal tone")
    profile.note_preference("household", "reply_style", "Never use emojis")
    profile.note_preference("household", "language", "Reply in Chinese")

    assert profile.note_preference("household", "reply_style", "Give detailed answers")
    assert profile.note_preference("household", "language", "用英文回答")

    text = profile.read()
    assert section_of(text, "Reply style") == [
        "- Use a formal tone",
        "- Never use emojis",
        "- Give detailed answers",
    ]
    assert section_of(text, "Language") == ["- 用英文回答"]
    assert "\n\n\n" not in text


def test_restating_a_preference_removes_its_contradiction(
    profile: UserProfile,
) -> None:
    profile.write(
        "household",
        "## Reply style\n\n- Keep answers short\n- Give detailed answers\n",
    )

    assert profile.note_preference("household", "reply_style", "Keep answers short")

    assert profile.read() == "## Reply style\n\n- Keep answers short\n"


def test_replaces() -> None:
    assert replaces("Keep answers short", "give detailed answers")
    assert replaces("回答要簡短", "Give detailed answers")
    assert replaces("Use a casual tone", "语气要正式")
    assert replaces("Reply in English", "Reply in Simplified Chinese")
    assert replaces("用繁體中文回答", "Reply in English")
    assert not replaces("Reply in English", "reply in english")
    assert not replaces("Keep answers short", "Use a formal tone")
    assert not replaces("Reply in English", "Speak slowly")
    # A new job, workplace or field replaces the old one (the memory of it is too).
    assert replaces("Works as a nurse", "Works as a teacher")
    assert replaces("Is retired", "Works as a nurse")
    assert replaces("是老师", "是一名护士")
    assert replaces("Works at Google", "Works at the hospital")
    assert replaces("在学校工作", "在医院上班")
    assert replaces("Works in finance", "Works in IT")
    # Different kinds stand side by side; so does what people wrote themselves.
    assert not replaces("Works in IT", "Works at Google")
    assert not replaces("Works as a nurse", "Works at the hospital")
    assert not replaces("Works as a teacher", "Is a vegetarian")


@pytest.mark.parametrize(
    ("section", "statement", "code"),
    [
        ("hobbies", "Likes chess", "unknown_profile_section"),
        ("Reply style", "x", "unknown_profile_section"),
        ("background", "   ", "invalid_statement"),
        ("background", "x" * 501, "invalid_statement"),
        ("background", None, "invalid_statement"),
    ],
)
def test_note_preference_validation(
    profile: UserProfile, section: str, statement: object, code: str
) -> None:
    with pytest.raises(InvalidMemoryError) as err:
        profile.note_preference("household", section, statement)  # type: ignore[arg-type]

    assert err.value.code == code
    assert not profile.exists()


def test_note_preference_refuses_to_grow_past_the_limit(profile: UserProfile) -> None:
    profile.write("household", "x" * (MAX_PROFILE_LENGTH - 10))

    with pytest.raises(InvalidMemoryError) as err:
        profile.note_preference("household", "background", "Works as a nurse")

    assert err.value.code == "profile_too_long"


def test_concurrent_notes_lose_nothing(profile: UserProfile) -> None:
    statements = [f"Fact number {i}" for i in range(40)]

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(
            pool.map(
                lambda s: profile.note_preference("household", "background", s),
                statements,
            )
        )

    assert all(results)
    bullets = section_of(profile.read(), "Background")
    assert sorted(bullets) == sorted(f"- {s}" for s in statements)


def test_add_bullet_keeps_a_text_without_final_newline_when_unchanged() -> None:
    text = "## Language\n- Reply in English"

    assert add_bullet(text, "Language", "reply in english") == text


# -- profile_updates: positives ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # reply style, English
        ("Keep answers short", ("reply_style", "Keep answers short")),
        ("Please keep your answers short.", ("reply_style", "Keep answers short")),
        ("be brief", ("reply_style", "Keep answers short")),
        ("Could you be more concise?", ("reply_style", "Keep answers short")),
        ("I prefer shorter answers", ("reply_style", "Keep answers short")),
        ("answer briefly from now on", ("reply_style", "Keep answers short")),
        ("be less verbose", ("reply_style", "Keep answers short")),
        ("answer in detail", ("reply_style", "Give detailed answers")),
        ("I like more detailed answers", ("reply_style", "Give detailed answers")),
        ("please be more thorough", ("reply_style", "Give detailed answers")),
        ("please be more formal", ("reply_style", "Use a formal tone")),
        ("use a formal tone with me", ("reply_style", "Use a formal tone")),
        ("talk more casually", ("reply_style", "Use a casual tone")),
        ("use a relaxed tone", ("reply_style", "Use a casual tone")),
        # reply style, Chinese
        ("回答简短一点", ("reply_style", "回答要简短")),
        ("请简短一点", ("reply_style", "回答要简短")),
        ("说话简洁些", ("reply_style", "回答要简短")),
        ("别那么啰嗦", ("reply_style", "回答要简短")),
        ("回答簡短一點", ("reply_style", "回答要簡短")),
        ("说详细点", ("reply_style", "回答要详细")),
        ("詳細一點", ("reply_style", "回答要詳細")),
        ("用正式一点的语气", ("reply_style", "语气要正式")),
        ("語氣正式一點", ("reply_style", "語氣要正式")),
        ("说话轻松一点", ("reply_style", "语气要轻松随意")),
        ("用隨意的語氣", ("reply_style", "語氣要輕鬆隨意")),
        # language
        ("speak English to me", ("language", "Reply in English")),
        ("reply in Chinese", ("language", "Reply in Chinese")),
        (
            "please talk to me in traditional chinese",
            ("language", "Reply in Traditional Chinese"),
        ),
        ("switch to German", ("language", "Reply in German")),
        ("use French from now on", ("language", "Reply in French")),
        ("用中文回答", ("language", "用中文回答")),
        ("请用英文回答我。", ("language", "用英文回答")),
        ("跟我说英文", ("language", "用英文回答")),
        ("用繁體中文", ("language", "用繁體中文回答")),
        ("以后换成日语吧", ("language", "用日语回答")),
        # background
        ("I'm a nurse", ("background", "Works as a nurse")),
        ("I am an engineer.", ("background", "Works as an engineer")),
        (
            "I'm a high school teacher at Lincoln",
            ("background", "Works as a high school teacher"),
        ),
        ("I'm a student", ("background", "Is a student")),
        ("I'm a retired teacher", ("background", "Is a retired teacher")),
        ("I work as a teacher", ("background", "Works as a teacher")),
        ("I work as a Data Analyst now", ("background", "Works as a data analyst")),
        ("I work at a hospital", ("background", "Works at a hospital")),
        ("I work for Google", ("background", "Works at Google")),
        ("I work in IT", ("background", "Works in IT")),
        ("I work in healthcare", ("background", "Works in healthcare")),
        ("I'm retired", ("background", "Is retired")),
        ("我是一名护士", ("background", "是一名护士")),
        ("我是小学老师。", ("background", "是小学老师")),
        ("我在医院工作", ("background", "在医院工作")),
        ("我现在在银行上班", ("background", "在银行上班")),
        ("我在Google工作", ("background", "在Google工作")),
        ("我已经退休了", ("background", "已退休")),
    ],
)
def test_profile_updates_positive(text: str, expected: tuple[str, str]) -> None:
    assert profile_updates(text) == [expected]


def test_profile_updates_finds_several_in_order() -> None:
    text = "I'm a nurse, so please keep answers short and reply in Chinese."

    assert profile_updates(text) == [
        ("background", "Works as a nurse"),
        ("reply_style", "Keep answers short"),
        ("language", "Reply in Chinese"),
    ]


def test_profile_updates_mixed_chinese() -> None:
    assert profile_updates("我是一名护士，回答简短一点，用中文回答。") == [
        ("background", "是一名护士"),
        ("reply_style", "回答要简短"),
        ("language", "用中文回答"),
    ]


def test_profile_updates_deduplicates() -> None:
    assert profile_updates("Be brief. Keep your answers short. Be concise!") == [
        ("reply_style", "Keep answers short")
    ]


# -- profile_updates: negatives -------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "what's the weather",
        "What's the weather like tomorrow?",
        "turn on the kitchen lights",
        "tell me a short story",
        "keep it short",  # a one-off request, not a standing preference
        "I'll be brief",
        "I will try to be brief",
        "don't be brief",
        "do not answer in detail",
        "do you speak English?",
        "how do you say thank you in French",
        "translate hello to Spanish",
        "I'm a bit cold",
        "I'm a fan of the doctor who series",
        "I'm not a nurse",
        "if I'm a student do I get a discount",
        "I work at Christmas",
        "I work in the garden on Sundays",
        "I work at 9 tomorrow",
        "is the answer short",
        "我是谁",
        "我是护士吗",
        "我是说医生明天来",
        "我是医生的妻子",
        "我在努力工作",
        "我在工作",
        "我在哪里工作",
        "用中文怎么说苹果",
        "用英文写一封信",
        "你会说中文吗",
        "这个问题说简单点就是这样",
        "今天天气怎么样",
        "打开客厅的灯",
        "不要用正式的语气",
        "如果我是一名护士",
    ],
)
def test_profile_updates_negative(text: str) -> None:
    assert profile_updates(text) == []


def test_profile_updates_tolerates_non_text() -> None:
    assert profile_updates(None) == []  # type: ignore[arg-type]


def test_recognised_statements_feed_the_profile(profile: UserProfile) -> None:
    for text in ("I'm a nurse", "keep your answers short", "reply in Chinese"):
        for section, statement in profile_updates(text):
            profile.note_preference("household", section, statement)
    for section, statement in profile_updates("Speak English to me. Be brief."):
        profile.note_preference("household", section, statement)

    text = profile.read()
    assert section_of(text, "Reply style") == ["- Keep answers short"]
    assert section_of(text, "Language") == ["- Reply in English"]
    assert section_of(text, "Background") == ["- Works as a nurse"]
