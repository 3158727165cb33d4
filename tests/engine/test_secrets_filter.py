"""Secrets never become memories: what is a secret, what is not, and redaction."""

from __future__ import annotations

import pytest

from custom_components.assist_memory.engine.language.rule_extraction import (
    RuleBasedExtractor,
)
from custom_components.assist_memory.engine.language.secrets_filter import (
    REDACTED,
    SecretMatch,
    contains_secret,
    find_secrets,
    luhn_valid,
    mentions_secret,
    redact,
)
from custom_components.assist_memory.engine.language.spoken_values import value_runs

# (text, what redact leaves)
SECRETS: list[tuple[str, str]] = [
    # A number said to be a card's is a secret even when its check digit is wrong.
    (
        "My debit card number is 5100 2233 4455 6678",
        "My debit card number is [secret withheld]",
    ),
    ("我的信用卡号是6222 0212 3456 7891", "我的信用卡号是[secret withheld]"),
    ("我的信用卡號碼是4311 2233 4455 6678", "我的信用卡號碼是[secret withheld]"),
    ("the safe combination is 12-34-56", "the safe combination is [secret withheld]"),
    ("my password is hunter2", "my password is [secret withheld]"),
    ("The wifi password is Sunshine2024", "The wifi password is [secret withheld]"),
    (
        "the password for the guest network is tulip-42.",
        "the password for the guest network is [secret withheld].",
    ),
    ("My password: 'correct horse'", "My password: [secret withheld]"),
    ("change the password to Winter2025", "change the password to [secret withheld]"),
    ("My PIN is 1234.", "My PIN is [secret withheld]."),
    ("PIN 4321", "PIN [secret withheld]"),
    ("the alarm code is 4821", "the alarm code is [secret withheld]"),
    ("set the alarm code to 2468", "set the alarm code to [secret withheld]"),
    ("The door code is 7788#", "The door code is [secret withheld]"),
    ("Your verification code is 482913", "Your verification code is [secret withheld]"),
    ("the code is 482913", "the code is [secret withheld]"),
    ("the code for the gate is 1 2 3 4", "the code for the gate is [secret withheld]"),
    (
        "my social security number is 078-05-1120",
        "my social security number is [secret withheld]",
    ),
    ("My card number is 4111 1111 1111 1111", "My card number is [secret withheld]"),
    ("card 5500-0000-0000-0004 expires soon", "card [secret withheld] expires soon"),
    ("amex 378282246310005", "amex [secret withheld]"),
    ("IBAN DE89 3704 0044 0532 0130 00 please", "IBAN [secret withheld] please"),
    ("pay to GB82WEST12345698765432", "pay to [secret withheld]"),
    ("my key is sk-proj-abcdefghij1234567890XYZ", "my key is [secret withheld]"),
    ("AKIAIOSFODNN7EXAMPLE is the key id", "[secret withheld] is the key id"),
    ("Authorization: Bearer abcdef123456.xyz", "Authorization: [secret withheld]"),
    ("token: 9f8e7d6c5b4a39281706f5e4d3c2b1a0", "token: [secret withheld]"),
    ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[secret withheld]"),
    ("xoxb-1234567890-abcdefghij", "[secret withheld]"),
    ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "[secret withheld]"),
    ("glpat-abcdefghij1234567890", "[secret withheld]"),
    (
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abcdefghijk",
        "jwt [secret withheld]",
    ),
    ("the api key is a1b2c3d4e5f6", "the api key is [secret withheld]"),
    (
        "the access token is abcdefghijklmnopqrst",
        "the access token is [secret withheld]",
    ),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
        "[secret withheld]",
    ),
    ("uuid 123e4567-e89b-12d3-a456-426614174000", "uuid [secret withheld]"),
    ("我的密码是abc12345", "我的密码是[secret withheld]"),
    ("wifi密码是 happy2024", "wifi密码是 [secret withheld]"),
    ("WiFi 密码：Tulip-42", "WiFi 密码：[secret withheld]"),
    ("银行卡密码是123456。", "银行卡密码是[secret withheld]。"),
    ("验证码：482913", "验证码：[secret withheld]"),
    ("验证码是 5521", "验证码是 [secret withheld]"),
    ("门禁密码是1234#", "门禁密码是[secret withheld]"),
    ("PIN 码是 8866", "PIN 码是 [secret withheld]"),
    ("pin码 1357", "pin码 [secret withheld]"),
    ("报警器密码是2468", "报警器密码是[secret withheld]"),
    ("支付密码为135790", "支付密码为[secret withheld]"),
    ("取件码 3-2-1108", "取件码 [secret withheld]"),
    ("我的卡号是4111111111111111", "我的卡号是[secret withheld]"),
    ("密码是一二三四五六", "密码是[secret withheld]"),
    ("門禁密碼是 5678", "門禁密碼是 [secret withheld]"),
    ("我的API密钥是sk-abc123", "我的API密钥是[secret withheld]"),
    ("訪問令牌是ab12cd34", "訪問令牌是[secret withheld]"),
    # Shapes right beside Chinese characters (no space, no word boundary).
    ("转账到GB82WEST12345698765432就好", "转账到[secret withheld]就好"),
    ("账号DE89370400440532013000。", "账号[secret withheld]。"),
    ("密钥AKIAIOSFODNN7EXAMPLE", "密钥[secret withheld]"),
    ("令牌xoxb-1234567890-abcdefghij吧", "令牌[secret withheld]吧"),
    # Said in passing, as people say them: a few words from the name, as words, in
    # groups, read out, spelled; the harmless half stays.
    (
        "My gym is PureMove on King Street, and my locker PIN there is 2218.",
        (
            "My gym is PureMove on King Street, and my locker PIN there is"
            " [secret withheld]."
        ),
    ),
    (
        "and our account password with them is bluebell.",
        "and our account password with them is [secret withheld].",
    ),
    ("My passport number is 533918274.", "My passport number is [secret withheld]."),
    (
        "the code for the key safe is nine one eight two",
        "the code for the key safe is [secret withheld]",
    ),
    (
        "The verification code they just texted me is 771 204.",
        "The verification code they just texted me is [secret withheld].",
    ),
    ("gate code's double six oh five", "gate code's [secret withheld]"),
    ("eight two nine four is the alarm code", "[secret withheld] is the alarm code"),
    (
        "key safe's by the back door, code's 3 5 7 1, that's for the carers",
        "key safe's by the back door, code's [secret withheld], that's for the carers",
    ),
    (
        "card number 4929 1234 5678 9012, expiry oh nine twenty-eight, CVV 614",
        "card number [secret withheld], expiry [secret withheld], CVV [secret withheld]",
    ),
    (
        "sort code 04-00-04, account 71829364",
        "sort code [secret withheld], account [secret withheld]",
    ),
    ("National insurance, QQ 12 34 56 C.", "National insurance, [secret withheld]."),
    (
        "Security question, first pet, the answer's Rolo.",
        "Security question, first pet, the answer's [secret withheld].",
    ),
    (
        "the Gmail password, it's capital G, lowercase r, e, e, n, then four four eight",
        "the Gmail password, it's [secret withheld]",
    ),
    ("my password is purple elephant", "my password is [secret withheld]"),
    ("门禁密码幺洞洞拐 记一下", "门禁密码[secret withheld] 记一下"),
    ("我存折密码啊，四个八", "我存折密码啊，[secret withheld]"),
    ("停車場閘口密碼係孖八孖六", "停車場閘口密碼係[secret withheld]"),
    ("验证码是五八二 九零六，快输", "验证码是[secret withheld]，快输"),
    ("我身份證號碼係 Z683921(4)", "我身份證號碼係 [secret withheld]"),
    ("第一只宠物叫豆豆 这个是密保答案", "第一只宠物叫[secret withheld] 这个是密保答案"),
    # An old value of the same shape beside the new one gives it away.
    (
        "The alarm PIN is 4821 now, we changed it from 9034 last week",
        (
            "The alarm PIN is [secret withheld] now, we changed it from"
            " [secret withheld] last week"
        ),
    ),
    (
        "The safe code is 7712, not 7721",
        "The safe code is [secret withheld], not [secret withheld]",
    ),
    (
        "The PIN is 4821, our flat is 1204 and it cost 2500 pounds",
        "The PIN is [secret withheld], our flat is 1204 and it cost 2500 pounds",
    ),
    # A combination said as turns.
    (
        "the bike lock goes right 8, left 22, right 4",
        "the bike lock goes [secret withheld]",
    ),
    # An English name in a Chinese sentence, a change said by who made it.
    ("这个API key是ZX81QW77PLM2，帮我记着", "这个API key是[secret withheld]，帮我记着"),
    ("車庫門的code是5 0 2 8喔", "車庫門的code是[secret withheld]喔"),
    ("路由器密码我改成panda_hill_42了", "路由器密码我改成[secret withheld]了"),
    # By their shape alone: words and a number joined by hyphens, a generated token.
    (
        "Router admin is admin slash Kettle-Moon-55, I never changed the username",
        "Router admin is admin slash [secret withheld], I never changed the username",
    ),
    (
        "公司VPN存一下：ak-7Hq2Lz9Wm4Xc8Vb1，下礼拜过期",
        "公司VPN存一下：[secret withheld]，下礼拜过期",
    ),
    # Names of secrets: a login code, a token code, a residence permit, an alarm.
    ("登录码是七三九一零四", "登录码是[secret withheld]"),
    ("我的令牌码是Q7XK2", "我的令牌码是[secret withheld]"),
    ("她的居留證號碼是TR0987654", "她的居留證號碼是[secret withheld]"),
    ("警報器先按4 4 0 2再按確認", "警報器先按[secret withheld]再按確認"),
    # A value first, then what it is; a question naming what follows.
    (
        "5530, that's the new garage code, don't forget",
        "[secret withheld], that's the new garage code, don't forget",
    ),
    (
        "the alarm pin? we changed it, it isn't 0808 anymore",
        "the alarm pin? we changed it, it isn't [secret withheld] anymore",
    ),
    # A house alarm and a door entry system; the same value said again.
    (
        "our house alarm was 2288 until the installer reset it to 6014 yesterday",
        (
            "our house alarm was [secret withheld] until the installer reset it to"
            " [secret withheld] yesterday"
        ),
    ),
    (
        "at the intercom you key 3 3 1 9 and wait for the click",
        "at the intercom you key [secret withheld] and wait for the click",
    ),
    (
        "the locker code is B-7-7-0, so just B770",
        "the locker code is [secret withheld], so just [secret withheld]",
    ),
    # "pass" for a password, and a wallet's recovery words.
    (
        "my login's tom.h and my pass is Harbour_77",
        "my login's tom.h and my pass is [secret withheld]",
    ),
    (
        "the recovery phrase is maple orbit velvet canyon drum silver, keep it",
        "the recovery phrase is [secret withheld], keep it",
    ),
    # Recovery words said as a list, in English and in Chinese; a passphrase in
    # Chinese quotes; a recovery key (Taiwan's 金鑰); a dial's turns said in words.
    (
        "the seed phrase is ocean, hurdle, pilot, crisp, amber, whale, doctor, fancy.",
        "the seed phrase is [secret withheld].",
    ),
    (
        "錢包的助記詞：garden，lucky，fabric，stone，hint，zebra，eager，motor。",
        "錢包的助記詞：[secret withheld]。",
    ),
    (
        "通關密語是「紫色 颱風 鳳梨酥」，硬碟用的",
        "通關密語是[secret withheld]，硬碟用的",
    ),
    ("救援金鑰是 F4K9-R2M7", "救援金鑰是 [secret withheld]"),
    (
        "the safe opens on left twenty-four, right thirteen, left seven, then pull",
        "the safe opens on [secret withheld], then pull",
    ),
    # Said again after 就是, and its old value beside the new one; a Malaysian
    # identity card number.
    (
        "蝦皮的密碼是 Shopee 底線 chiayi 九九，就是 Shopee_chiayi99。",
        "蝦皮的密碼是 [secret withheld] 底線 chiayi 九九，就是 [secret withheld]。",
    ),
    (
        "網銀密碼我改成 Tn-2024x 了，舊的那個 tainan1955 不要再用。",
        "網銀密碼我改成 [secret withheld] 了，舊的那個 [secret withheld] 不要再用。",
    ),
    (
        "Old Wi-Fi password was Kk-12ab34, we changed it to Hh-78kL2q.",
        "Old Wi-Fi password was [secret withheld], we changed it to [secret withheld].",
    ),
    (
        "My IC number is 880412-14-5563, for the insurance form",
        "My IC number is [secret withheld], for the insurance form",
    ),
    # A password spelled out after a filler, then said again written out.
    (
        "the password's, like, lowercase p, capital L, u, m, 8, 8, so pLum88!",
        "the password's, like, [secret withheld], so [secret withheld]!",
    ),
    # Chinese: an unlock code, a verification code (Taiwan), a smart lock changed.
    ("阿爸部手機解鎖碼係三五三五", "阿爸部手機解鎖碼係[secret withheld]"),
    ("蝦皮的認證碼是 4 4 1 0 2 9", "蝦皮的認證碼是 [secret withheld]"),
    (
        "我们家智能锁密码改了，现在是六六八八二一",
        "我们家智能锁密码改了，现在是[secret withheld]",
    ),
    ("密保提示问题的答案是「小白」", "密保提示问题的答案是「[secret withheld]」"),
    # A pause around the join, a word value said again, what someone logs in with.
    (
        "the router password is, um, let me think, velvet-otter-31",
        "the router password is, um, let me think, [secret withheld]",
    ),
    (
        "backup phrase for the old laptop, in case: harbor lemon quiet tiger",
        "backup phrase for the old laptop, in case: [secret withheld]",
    ),
    (
        "the gym app password is marmalade, yes marmalade, all lowercase",
        "the gym app password is [secret withheld], yes [secret withheld], all lowercase",
    ),
    (
        "for the council site I sign in with Green!Door42 every time",
        "for the council site I sign in with [secret withheld] every time",
    ),
    # A keypad or a lock's dials, and a value said before its Chinese name.
    (
        "round the back use the pad, 7 3 0 9, then enter",
        "round the back use the pad, [secret withheld], then enter",
    ),
    (
        "the bike lock has dials, set them to 4 1 1 8",
        "the bike lock has dials, set them to [secret withheld]",
    ),
    ("6174，这个是仓库卷闸门的密码", "[secret withheld]，这个是仓库卷闸门的密码"),
    # A memorable date in words, a form's answer in Chinese.
    (
        "and for the building society the memorable date is the ninth of May, ok",
        "and for the building society the memorable date is [secret withheld], ok",
    ),
    (
        "小学叫什么名字那个问题，我答案填的是红星",
        "小学叫什么名字那个问题，我答案填的是[secret withheld]",
    ),
]

NOT_SECRETS: list[str] = [
    # Directions are no dial's turns; a list of words after no secret's name stays.
    "turn left at the lights, then right, and left again",
    # What follows "so" after a password is not always the password said again.
    "we changed it to the blue one last week, the bins go out on Monday",
    "the parcel's order number is 880412-14, it comes Friday",
    "my password is [secret withheld], so the flight BA2490 is on the list",
    "the shopping list is eggs, milk, bread, butter, jam, tea",
    "Turn left at the church, then right",
    "这个code是什么意思",
    "My library card number is on the fridge",
    "The combination of pasta and pesto is great",
    "I was born in 1985",
    "Wake me up at 6:30 tomorrow",
    "I have 2 cats",
    "My bike cost 300 euros",
    "The meeting is at 14:00 on 2024-05-03",
    "My zip code is 10115",
    "The dress code is casual",
    "My password manager is Bitwarden",
    "I forgot my password",
    "I need to change the wifi password",
    "Change the password to something stronger",
    "The password is in the drawer",
    "The code is written on the fridge",
    "my pin is in my wallet",
    "The token is valid until Friday",
    "I pinned 200 photos",
    "My phone number ends in 42",
    "Flight LH 1234 leaves at 9",
    "Supercalifragilisticexpialidocious",
    "My MacBookPro2021 and the iPhone15ProMax need charging",
    "The Coca-Cola-500ml bottles and the WH1000XM4 headphones",
    "She lives in a mother-in-law flat in Stratford-upon-Avon",
    "light.living_room_ceiling_lamp_2",
    "sensor.living_room_temperature_sensor_battery_level",
    "https://github.com/home-assistant/core/pull/123456",
    "4111 1111 1111 1112",
    "+86 138 0013 8000",
    "DE89 3704 0044 0532 0130 01",
    "room 1234",
    "AB12 CDEF GHIJ",
    "Our anniversary is 2012-06-05 and we met in 2010",
    "我有两只猫",
    "我1985年出生",
    "明天早上7点叫我起床",
    "我的自行车花了300欧元",
    "我忘了wifi密码",
    "wifi密码是多少",
    "验证码还没收到",
    "房间温度是23度",
    "我的密码是我的生日",
    "API密钥在哪里",
    "我跑了10公里",
    "我家的门牌号是1203",
    # Numbers that are not secrets, said near the words for one.
    "Our licence plate is WX19 KTP",
    "Call the plumber on 0161 496 0732",
    "We live at flat 12, 221 Baker Street, postcode SW1A 1AA",
    "Our flight is BA 2490 on the 14th",
    "The tracking number is 1Z999AA10123456784",
    "The wifi is called Tulip-5G-2024",
    "I forgot my PIN again and the card got eaten",
    "The alarm goes off at 6 30 every morning",
    "I've got three cards and two of them expire in 2027",
    "The boiler's showing error code F28 again",
    "My passport expires in March 2029",
    "My locker at work is number 31 on the second floor",
    "我的车牌是粤B 12345",
    "我的手机号是138 0013 8000",
    "航班是MU5137，二十四号早上八点五十起飞",
    "快递单号SF1409876543210",
    "我的银行卡丢了，密码也忘了",
    # A network's name, a bus or boarding pass, a house alarm set for a time.
    "家里wifi名字叫 TP-Link-7F3A，密码在路由器上",
    "my boarding pass is BA2490 and the gate is 23",
    "the season pass is 2025-26 only",
    "set the house alarm for 10 30 tonight",
    "the intercom at flat 12 is broken again",
    "the seed phrase is in the fireproof box",
    # A connector is a whole word: "password today", "passwords are hardware-backed".
    "I reset the email password today so the kids need the new one",
    "I log in with my email address, not with Google",
    # A card reader is a device, its number no card's.
    "the card machine's number is R N 5 5 0 2 8, it's under the till",
    # A quiz's answer, and a question's words, are no secret.
    "这道题的答案是三十六，老师说的",
    "我们的旅行计划答案是去东京",
    "",
]


@pytest.mark.parametrize(("text", "redacted"), SECRETS, ids=[t for t, _ in SECRETS])
def test_secrets_are_found_and_redacted(text: str, redacted: str) -> None:
    assert contains_secret(text)
    assert redact(text) == redacted
    assert not contains_secret(redact(text))


@pytest.mark.parametrize("text", NOT_SECRETS)
def test_ordinary_text_is_not_a_secret(text: str) -> None:
    assert not contains_secret(text)
    assert redact(text) == text
    assert find_secrets(text) == []


def test_enough_cases_in_both_languages() -> None:
    def chinese(text: str) -> bool:
        return any("\u4e00" <= char <= "\u9fff" for char in text)

    assert sum(not chinese(t) for t, _ in SECRETS) >= 20
    assert sum(chinese(t) for t, _ in SECRETS) >= 10
    assert sum(not chinese(t) for t in NOT_SECRETS) >= 20
    assert sum(chinese(t) for t in NOT_SECRETS) >= 10


def test_luhn() -> None:
    assert luhn_valid("4111111111111111")
    assert luhn_valid("378282246310005")
    assert not luhn_valid("4111111111111112")
    assert not luhn_valid("41111111x1111111")
    assert contains_secret("4111-1111-1111-1111")
    assert not contains_secret("4111-1111-1111-1112")
    # Valid Luhn but not written like a card number (groups of 2) or not a card prefix.
    assert not contains_secret("41 11 11 11 11 11 11 11")
    assert not contains_secret("0000 0000 0000 0000")


def test_find_secrets_reports_kinds_and_merges_overlaps() -> None:
    text = "pin 1234 and card 4111 1111 1111 1111 and token: sk-abcdefghijklmnopqrstuvwxyz12"

    kinds = [match.kind for match in find_secrets(text)]

    assert kinds == ["code", "card_number", "token"]
    overlapping = find_secrets("the api key is sk-abcdefghijklmnopqrstuvwxyz12345")
    assert len(overlapping) == 1
    assert isinstance(overlapping[0], SecretMatch)
    # A code value that is the start of a card number: one match over the whole number.
    text = "my pin is 4111 1111 1111 1111"
    assert [(m.start, m.end) for m in find_secrets(text)] == [(10, len(text))]


def test_redact_with_a_custom_placeholder() -> None:
    assert redact("my pin is 1234, ok?", "***") == "my pin is ***, ok?"
    assert REDACTED == "[secret withheld]"


@pytest.mark.parametrize(("text", "redacted"), SECRETS, ids=[t for t, _ in SECRETS])
def test_redacting_twice_changes_nothing_more(text: str, redacted: str) -> None:
    assert redact(redact(text)) == redacted
    assert find_secrets(redacted) == []


def test_the_rest_of_the_sentence_is_kept() -> None:
    text = "The alarm code is 4321 and my bank PIN is 9876, call me after six."

    assert redact(text) == (
        "The alarm code is [secret withheld] and my bank PIN is [secret withheld],"
        " call me after six."
    )


def test_a_withheld_secret_is_still_mentioned() -> None:
    # What replaced a secret never becomes a memory ("my password is [secret withheld]").
    assert mentions_secret("my wifi password is [secret withheld]")
    assert mentions_secret("my wifi password is hunter2")
    assert not mentions_secret("my wifi network is called Tulip")


def test_learning_never_stores_a_withheld_secret() -> None:
    facts = RuleBasedExtractor().extract(redact("My wifi password is hunter2"))

    assert facts == []


def test_a_currency_sign_inside_a_word_is_no_amount() -> None:
    # A value the secret head reads ("so Creeper$2009"); an amount is none.
    said = "so Creeper$2009"
    assert [said[r.start : r.end] for r in value_runs(said)] == ["2009"]
    assert value_runs("it costs $2009 a year") == []
