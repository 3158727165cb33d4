"""Memory sentences for the intent agent, in English and Chinese."""

from __future__ import annotations

import pytest

from custom_components.assist_memory.engine.language.commands import (
    CommandScopes,
    MemoryCommand,
    about_whom,
    command_scopes,
    join_items,
    parse_command,
    reply,
    reply_language,
    scopes_about,
)


@pytest.mark.parametrize(
    ("text", "action", "subject"),
    [
        (
            "Remember that Anna takes her coffee black.",
            "remember",
            "Anna takes her coffee black",
        ),
        (
            "remember my car is parked on level 3",
            "remember",
            "my car is parked on level 3",
        ),
        (
            "Please keep in mind that the bins go out on Tuesday!",
            "remember",
            "the bins go out on Tuesday",
        ),
        ("What do you remember about Anna?", "recall", "Anna"),
        ("what do you know about the boiler", "recall", "the boiler"),
        ("Do you remember my wifi router?", "recall", "my wifi router"),
        ("Do you remember anything about Tom?", "recall", "Tom"),
        ("Forget about the boiler", "forget", "the boiler"),
        ("please forget that Tom is allergic", "forget", "Tom is allergic"),
        ("Forget everything about Anna.", "forget", "Anna"),
        ("记住安娜喝黑咖啡", "remember", "安娜喝黑咖啡"),
        ("请记住：明天要交电费", "remember", "明天要交电费"),
        ("帮我记一下，钥匙在鞋柜里。", "remember", "钥匙在鞋柜里"),
        ("請記住：明天要繳電費", "remember", "明天要繳電費"),
        ("你记得安娜喝什么咖啡吗？", "recall", "安娜喝什么咖啡"),
        ("你还记得我的车停在哪吗", "recall", "我的车停在哪"),
        ("关于安娜你记得什么？", "recall", "安娜"),
        ("關於安娜你記得什麼？", "recall", "安娜"),
        ("你記得我的車停在哪嗎？", "recall", "我的車停在哪"),
        ("忘记安娜的咖啡", "forget", "安娜的咖啡"),
        ("忘掉关于锅炉的记忆", "forget", "锅炉"),
        ("刪掉關於鍋爐的記憶", "forget", "鍋爐"),
    ],
)
def test_commands(text: str, action: str, subject: str) -> None:
    assert parse_command(text) == MemoryCommand(action, subject)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "Stop remembering",
        "stop remembering this conversation.",
        "Don't remember this!",
        "Don’t remember that",
        "do not remember any of this",
        "别记住这个",
        "不要记这个。",
        "请不要再记了",
        "停止记忆",
        "暂停记录",
        "別記住這個",
        "不要記這個",
        "停止記憶",
    ],
)
def test_pause_sentences(text: str) -> None:
    assert parse_command(text) == MemoryCommand("pause", "")


@pytest.mark.parametrize(
    ("subject", "whose"),
    [
        ("my dentist appointment is on Friday", "speaker"),
        ("I am allergic to peanuts", "speaker"),
        ("I'm vegetarian", "speaker"),
        ("Anna told me the code", "speaker"),
        ("our wifi is called Tulip", "household"),
        ("we're out of milk", "household"),
        ("the family's dentist is Dr. Chen", "household"),
        ("everyone's bikes are in the shed", "household"),
        ("my sister visits us on Sunday", "speaker"),
        ("the spare key is under the mat", None),
        ("Anna likes tea", None),
        ("我的牙医预约在周五", "speaker"),
        ("我们家的垃圾周二收", "household"),
        ("我們家的垃圾週二收", "household"),
        ("大家的自行车在车库", "household"),
        ("备用钥匙在门垫下面", None),
        # How learning writes a fact down (and an LLM told so writes it): the user is
        # the speaker, the household everyone.
        ("The user's favourite colour is teal", "speaker"),
        ("The user prefers oat milk", "speaker"),
        ("The household's bins go out on Tuesday", "household"),
        ("用户的生日是五月三号", "speaker"),
        ("用户家的垃圾周二收", "household"),
        ("用户一家周末去爬山", "household"),
    ],
)
def test_whom_a_sentence_is_about(subject: str, whose: str | None) -> None:
    assert about_whom(subject) == whose


def test_the_scope_follows_the_speaker() -> None:
    mine = MemoryCommand("remember", "my car is on level 3")
    ours = MemoryCommand("remember", "our car is on level 3")
    anyones = MemoryCommand("remember", "the car is on level 3")
    assert command_scopes(mine, "anna") == CommandScopes("anna", ("anna",))
    assert command_scopes(ours, "anna") == CommandScopes("household", ("household",))
    assert command_scopes(anyones, "anna") == CommandScopes(
        "household", ("household", "anna")
    )
    # Nobody known speaks (a satellite, an automation): the household's.
    for command in (mine, ours, anyones):
        assert command_scopes(command, None) == CommandScopes(
            "household", ("household",)
        )


def test_the_scope_of_any_text_follows_the_speaker() -> None:
    # The rule of the memory sentences, for text that is no command (an LLM tool's).
    assert scopes_about("my car is on level 3", "anna") == CommandScopes(
        "anna", ("anna",)
    )
    assert scopes_about("my car is on level 3", None).write == "household"
    assert scopes_about("our car is on level 3", "anna").write == "household"


@pytest.mark.parametrize(
    "text",
    [
        "turn on the light",
        "What time is it?",
        "I remember the old house",
        "Remember",
        "forget",
        "打开客厅的灯",
        "我记得这首歌",
        "现在几点了",
        "",
    ],
)
def test_other_sentences_pass_through(text: str) -> None:
    assert parse_command(text) is None


@pytest.mark.parametrize(
    ("language", "text", "expected"),
    [
        ("en", "", "en"),
        ("en-GB", "", "en"),
        ("zh-Hans", "", "zh-Hans"),
        ("zh-cn", "", "zh-Hans"),
        ("zh-TW", "", "zh-Hant"),
        ("zh-Hant-HK", "", "zh-Hant"),
        ("zh_HK", "", "zh-Hant"),
        (None, "记住这个", "zh-Hans"),
        ("*", "remember this", "en"),
        ("de", "", "en"),
        # A Chinese sentence gets a Chinese answer in any conversation language.
        ("en", "记住备用钥匙在花盆下面", "zh-Hans"),
        ("en", "記住備用鑰匙在花盆下面", "zh-Hant"),
        ("de", "你还记得备用钥匙吗", "zh-Hans"),
        ("en", "你還記得備用鑰匙嗎", "zh-Hant"),
        ("zh-Hans", "記住備用鑰匙在花盆下面", "zh-Hans"),
        ("en", "remember that 小明 likes tea", "en"),
    ],
)
def test_reply_language(language: str | None, text: str, expected: str) -> None:
    assert reply_language(language, text) == expected


def test_replies() -> None:
    assert (
        reply("en", "recall_none", subject="Anna")
        == "I don't remember anything about Anna."
    )
    assert reply("zh-Hans", "forgot_many", count=2) == "好的，我已经忘记了2条记忆。"
    assert reply("zh-Hant", "remembered") == "好的，我記住了。"
    assert reply("fr", "remembered") == "OK, I'll remember that."
    assert join_items("en", ["Anna likes tea.", "Tom likes coffee"]) == (
        "Anna likes tea; Tom likes coffee."
    )
    assert (
        join_items("zh-Hans", ["安娜喜欢茶", "汤姆喜欢咖啡"])
        == "安娜喜欢茶；汤姆喜欢咖啡。"
    )
