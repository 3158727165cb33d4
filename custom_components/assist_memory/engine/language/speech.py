"""Spoken-language clean-up before rule extraction, and the speaker's Chinese script.

People talking to a voice assistant say "um", "by the way", "sorry, I meant ...",
"不对，……" and "now"; none of that belongs in a memory read months later. A
correction keeps what it corrects to ("Sorry, it's on Tuesday, not Wednesday" ->
"it's on Tuesday"); the write-back then replaces the older memory by its key.

Memories are written in the script the user spoke: a sentence in traditional Chinese
gets 用戶, not 用户. Many sentences are written alike in both scripts (我太太不吃牛肉);
for those the conversation's language (zh-Hant, zh-TW, ...) tells.
"""

from __future__ import annotations

import re
from typing import Final

# Hesitations anywhere in an English sentence ("So, uh, I like ...").
_EN_HESITATION: Final = re.compile(
    r"(?:^|(?<=[\s,]))(?:u+m+|u+h+|e+r+m*|h+m+|u+h+m+|mm+)\b[,.]?\s*", re.IGNORECASE
)
_EN_LEADING: Final = re.compile(
    r"^(?:(?:oh|ah|well|so|also|and|but|actually|btw|by the way|like|right|basically"
    r"|honestly|okay|ok|anyway|look|listen|you know|i mean|just so you know"
    r"|sorry|correction|no wait|wait|no|oops|whoops|my bad|my mistake"
    r"|scratch that|let me correct that|let me correct myself|to correct what i said"
    r"(?: before| earlier)?|i got that wrong(?: earlier| before)?|i was wrong"
    r"|i misspoke|i meant(?: to say)?(?: that)?|i mean(?: to say)?|what i meant"
    r"(?: to say)? (?:is|was)(?: that)?|these days|nowadays|now)"
    r"\b\s*[,:;.!-]*\s*)+",
    re.IGNORECASE,
)
_EN_TRAILING: Final = re.compile(
    r"(?:\s*,?\s*\b(?:by the way|btw|you know|now|these days|nowadays)\b)+\s*[.!]*$"
    r"|\s*,\s*not\s+[^,]+$",
    re.IGNORECASE,
)
# "now" inside a sentence ("I now work at ..."), but not "from now on".
_EN_NOW: Final = re.compile(r"(?<!from )\bnow\b(?! on\b)\s*", re.IGNORECASE)
_ZH_LEADING: Final = re.compile(
    r"^(?:不对|不對|不是的|更正一下|更正|纠正一下|糾正一下|纠正|糾正|我刚刚说错了|我剛剛說錯了"
    r"|我刚才说错了|我剛才說錯了|我说错了|我說錯了|说错了|說錯了|我是说|我是說|我的意思是"
    r"|嗯+|呃+|额|那个|那個|就是说|就是說|就是|然后|然後|其实|其實|对了|對了|顺便说一下|順便說一下"
    r"|不好意思|刚才讲错了|剛才講錯了|刚才说错了|剛才說錯了|讲错了|講錯了"
    r"|现在|現在)[，,：:。\s]*"
)
_ZH_TRAILING: Final = re.compile(r"[，,]\s*(?:而)?不是[^，,]+$")
_ZH_NOW: Final = re.compile("现在|現在|目前|如今")


def spoken_clean(text: str) -> str:
    """The statement without fillers, correction phrases and "now"."""
    previous = None
    while previous != text:
        previous = text
        text = _EN_HESITATION.sub("", text).strip()
        text = _EN_LEADING.sub("", text).strip()
        text = _ZH_LEADING.sub("", text).strip()
        text = _EN_TRAILING.sub("", text).strip()
        text = _ZH_TRAILING.sub("", text).strip()
    text = _EN_NOW.sub("", text).strip()
    return _ZH_NOW.sub("", text)


# Common characters written only in traditional Chinese (their simplified forms differ).
_TRADITIONAL_ONLY: Final = frozenset(
    "們個這說過時會來車對麼裡點還後當長開電門問間為無學體東見頭話讓實從認覺氣錢歡愛聽鐘週"
    "師醫約禮練課書貓腳鑰鎖燈廳廚櫃屜號歲藍綠黃紅買賣飯館機場鄰麵雞魚鳥龍報紙誰應該壞錯聲"
    "響邊遠運動裝園圖團雙隻條輛臺灣傳備藥療護網級總經區爺媽顏習慣寫讀熱腦類廣視員單幫幾"
    "隨處絕夠嗎樓層衛陽簾寶兒難鬧設計劃導離關閉標準擔憂結紀曆節親孫鄉壓變訂確雖較"
    "華語豐銀剛錄鐵隊陰險陸緊細終給統線織續繩義聖聯職與舊藝蘋蘿蟲術衝補覽觀訊記訪許診詞試"
    "詳語調談請論謝證識譯貝負財貨貧責貴費貼資質購賽趕軍軟載輕輸轉辦農連進達違遞遲選郵醜釋"
    "針鋪鋼鍋鍵鏡閃閒閱闆階際雜靈靜頂項順須預領頻題額願風飛飲飽養餅騎驗髮鬆鮮鴨鹽麥齊齒"
    "龜壺顯蝦豬馬鹹湯廁頭傘證戶幣糾兩樂歷盜櫥喚嬤顆維碼"
)
# What the extractor itself writes in simplified form, and its traditional form.
_TO_TRADITIONAL: Final = (
    ("用户", "用戶"),
    ("希望被称为", "希望被稱為"),
    ("要记得", "要記得"),
)


def is_traditional(text: str) -> bool:
    """Whether Chinese text is written in traditional characters."""
    return any(char in _TRADITIONAL_ONLY for char in text)


def writes_traditional(language: str | None) -> bool:
    """Whether a language tag names traditional Chinese (zh-Hant, zh-TW, zh-HK, zh-MO)."""
    parts = (language or "").replace("_", "-").lower().split("-")
    if parts[0] != "zh" or "hans" in parts:
        return False
    return any(part in ("hant", "tw", "hk", "mo") for part in parts[1:])


def in_speakers_script(said: str, content: str, language: str | None = None) -> str:
    """A memory's content in the script of what the user said.

    Traditional when the words are, or when the conversation is in traditional
    Chinese (the words then are the same in both scripts).
    """
    if not (is_traditional(said) or writes_traditional(language)):
        return content
    for simplified, traditional in _TO_TRADITIONAL:
        content = content.replace(simplified, traditional)
    return content
