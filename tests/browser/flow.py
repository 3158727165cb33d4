"""What a person does in the memory manager, as one walk through every screen.

The same walk runs against the standalone server and inside Home Assistant, in English
and in Chinese: `Labels` holds the text the person reads and types in each language.
Before the walk each test has had a conversation (`Labels.said`) and written today's
daily log entry (`Labels.logged`) in its own way: the walk finds them on their screens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
import json
import os
from pathlib import Path
import re
import shutil

from playwright.sync_api import (
    Locator,
    Page,
    TimeoutError as PlaywrightTimeoutError,
    expect,
)

from tests.support.ha_process import ha_instance


@dataclass(frozen=True)
class MemoryRoutes:
    """The host's REST route of the memories (`.../memory/long-term`) and its token:
    what someone else (another tab, a voice command) changes behind the page's back."""

    url: str
    token: str

    def memory_id(self, content: str) -> str:
        status, page = ha_instance.request(
            "GET", f"{self.url}?limit=100", token=self.token
        )
        assert status == 200, page
        ids = [m["id"] for m in page["items"] if m["content"] == content]
        assert len(ids) == 1, page
        return str(ids[0])

    def add(self, content: str, **fields: object) -> None:
        status, answer = ha_instance.request(
            "POST", self.url, json_body={"content": content, **fields}, token=self.token
        )
        assert status == 201, answer

    def delete(self, memory_id: str) -> None:
        status, answer = ha_instance.request(
            "DELETE", f"{self.url}/{memory_id}", token=self.token
        )
        assert status == 200, answer


@dataclass(frozen=True)
class Labels:
    """The UI's words in one language, and the memories the person writes in it."""

    tab_memories: str
    tab_review: str
    to_check: str
    keep: str
    repeats: str
    merge: str
    merged: str
    tab_documents: str
    tab_daily: str
    days: str
    tab_sessions: str
    recent: str
    tab_settings: str
    tab_backup: str
    add: str
    edit: str
    delete: str
    conversation_deleted: str
    deleted: str
    undo_delete: str
    restored: str
    already_gone: str
    offline: str
    retry: str
    open_conversation: str
    why: str
    turn_one: str
    save: str
    content: str
    category: str
    tags: str
    preference: str
    # The filter chips: where a memory came from, when it was last used.
    origin: str
    learned_chip: str
    last_used: str
    recent_chip: str
    never_chip: str
    any_chip: str
    all_chip: str
    order: str
    most_used: str
    search_label: str
    where_from: str
    by_hand: str
    save_main: str
    main_saved: str
    auto_memory: str
    auto_off: str
    auto_on: str
    compact: str
    compacted: str
    not_enabled: str
    compaction_changes: str
    compaction_preview: str
    apply: str
    stale: str
    undo: str
    undone: str
    export: str
    exported: str
    clear: str
    clear_prompt: str
    clear_word: str
    clear_confirm: str
    import_file: str
    import_button: str
    imported: str
    unchanged: str
    empty: str
    # The memories: one kept as is, one edited, one deleted, a duplicate of the first.
    tea: str
    tea_again: str
    tea_tag: str
    tea_question: str
    cat: str
    cat_edited: str
    gone: str
    search_words: str
    boiler: str
    # Added behind the page's back (as learning would): it appears by itself.
    live: str
    # Added while a compaction is previewed: the preview is stale.
    late: str
    # Learned by Assist itself, unsure: to check under Review.
    learned: str
    # What was said in a conversation before the walk (its title), and a log entry.
    said: str
    logged: str


ENGLISH = Labels(
    tab_memories="Memories",
    tab_review="Review",
    to_check="Memories to check",
    keep="Keep",
    repeats="Repeats and contradictions",
    merge="Merge into one",
    merged="2 memories merged into one.",
    tab_documents="MEMORY.md & profile",
    tab_daily="Daily logs",
    days="Days",
    tab_sessions="Sessions",
    recent="Recent conversations",
    tab_settings="Settings",
    tab_backup="Export & import",
    add="Add memory",
    edit="Edit",
    delete="Delete",
    conversation_deleted="Conversation deleted.",
    deleted="Memory deleted.",
    undo_delete="Undo",
    restored="Memory restored.",
    already_gone="That memory had already been deleted.",
    offline="Cannot reach the memory service.",
    retry="Retry",
    open_conversation="Open",
    why="Why did Assist say that?",
    turn_one="1 turn",
    save="Save",
    content="Memory",
    category="Category",
    tags="Tags",
    preference="Preference",
    origin="Where it came from",
    learned_chip="Inferred by Assist",
    last_used="Last used in an answer",
    recent_chip="In the last 7 days",
    never_chip="Never",
    any_chip="Any",
    all_chip="All",
    order="Order",
    most_used="Most used first",
    search_label="Search what Assist knows",
    where_from="Where this came from",
    by_hand="Added by hand or imported",
    save_main="Save MEMORY.md",
    main_saved="MEMORY.md saved: 1 added",
    auto_memory="Learn from conversations",
    auto_off="Learning from conversations is off.",
    auto_on="Learning from conversations is on.",
    compact="Tidy up now",
    compacted=r"Tidied up: \d+ memories became \d+\.",
    not_enabled="Tidying up needs “Tidy up memories with the LLM” on",
    compaction_changes="What the last tidy-up changed",
    compaction_preview="What tidying up would change",
    apply="Apply",
    stale="The memories changed since this preview.",
    undo="Undo the last tidy-up",
    undone="The last tidy-up was undone.",
    export="Export to a file",
    exported="Exported",
    clear="Clear all",
    clear_prompt="Type DELETE to confirm",
    clear_word="DELETE",
    clear_confirm="Delete everything",
    import_file="File to import",
    import_button="Import",
    imported="Imported:",
    unchanged="Nothing changed: every memory in the file is already here",
    empty="No memories yet.",
    tea="We drink green tea every morning",
    tea_again="we drink green tea every morning.",
    tea_tag="drinks",
    tea_question="Which green tea do we drink every morning",
    cat="The cat is called Miso",
    cat_edited="The cat is called Mochi",
    gone="The old car is blue",
    search_words="green tea",
    boiler="The boiler is serviced in May",
    live="The window cleaner comes on Fridays",
    late="The piano tuner comes in June",
    learned="Someone seems to like jazz in the evening",
    said="Is the garden gate locked",
    logged="Watered the tomatoes in the greenhouse",
)

CHINESE = Labels(
    tab_memories="记忆",
    tab_review="复查",
    to_check="待确认的记忆",
    keep="保留",
    repeats="重复与矛盾",
    merge="合并为一条",
    merged="已将 2 条记忆合并为一条。",
    tab_documents="MEMORY.md 与个人资料",
    tab_daily="每日日志",
    days="日期",
    tab_sessions="对话",
    recent="最近的对话",
    tab_settings="设置",
    tab_backup="导出与导入",
    add="添加记忆",
    edit="编辑",
    delete="删除",
    conversation_deleted="已删除对话。",
    deleted="已删除记忆。",
    undo_delete="撤销",
    restored="已恢复记忆。",
    already_gone="这条记忆已经被删除了。",
    offline="无法连接到记忆服务。",
    retry="重试",
    open_conversation="打开",
    why="Assist 为什么这样回答？",
    turn_one="1 轮",
    save="保存",
    content="记忆内容",
    category="类别",
    tags="标签",
    preference="偏好",
    origin="来源",
    learned_chip="Assist 推断的",
    last_used="上次用于回答",
    recent_chip="最近 7 天内",
    never_chip="从未用过",
    any_chip="不限",
    all_chip="全部",
    order="排序",
    most_used="最常用优先",
    search_label="搜索 Assist 记得的内容",
    where_from="这条记忆从何而来",
    by_hand="手动添加或导入的",
    save_main="保存 MEMORY.md",
    main_saved="已保存 MEMORY.md：新增 1 条",
    auto_memory="从对话中学习",
    auto_off="从对话中学习已关闭。",
    auto_on="从对话中学习已开启。",
    compact="立即整理",
    compacted=r"整理完成：\d+ 条记忆合并为 \d+ 条。",
    not_enabled="整理记忆需要在“高级”中开启",
    compaction_changes="上次整理的变化",
    compaction_preview="整理将做出的变化",
    apply="应用",
    stale="预览之后记忆有了变化。",
    undo="撤销上次整理",
    undone="已撤销上次整理。",
    export="导出到文件",
    exported="已导出",
    clear="全部清除",
    clear_prompt="输入“删除”以确认",
    clear_word="删除",
    clear_confirm="全部删除",
    import_file="要导入的文件",
    import_button="导入",
    imported="已导入：",
    unchanged="没有变化：文件里的每条记忆都已在这里",
    empty="还没有记忆。",
    tea="我们每天早上喝绿茶",
    tea_again="我们每天早上喝绿茶。",
    tea_tag="饮料",
    tea_question="我们每天早上喝哪种绿茶",
    cat="我们家的猫叫年糕",
    cat_edited="我们家的猫叫汤圆",
    gone="旧车是蓝色的",
    search_words="绿茶",
    boiler="锅炉每年五月保养",
    live="擦窗工每周五来",
    late="钢琴调音师六月来",
    learned="好像有人晚上喜欢听爵士乐",
    said="花园的门锁好了吗",
    logged="给温室里的番茄浇了水",
)


# axe-core over the manager's element only (Home Assistant's own page is not ours to
# judge; the element sits in its shadow roots, where no selector reaches);
# the serious and critical violations, each with the elements it found.
SCAN = """async (app) => {
  const found = await axe.run(app, {
    resultTypes: ["violations"],
  });
  return found.violations
    .filter((violation) => ["serious", "critical"].includes(violation.impact))
    .map((violation) => ({
      id: violation.id,
      help: violation.help,
      nodes: violation.nodes.map((node) => node.target.join(" ")).slice(0, 5),
    }));
}"""


# The documentation's pictures (docs/images) are these tests' screenshots: with this
# variable set to 1, a shot named in a test's `doc_images` is also written there.
DOC_IMAGES_ENV = "ASSIST_MEMORY_DOC_IMAGES"
DOC_IMAGES = Path(__file__).resolve().parents[2] / "docs" / "images"


class Screens:
    """Numbered screenshots of one test in its own folder; with `axe` (axe-core's
    script), a screen shot with `scan=True` must have no serious or critical
    accessibility violation. `doc_images` maps a shot's name to the documentation
    picture it is, and a shot's `docs` names one; either is written only when
    ASSIST_MEMORY_DOC_IMAGES=1 (otherwise every run would change them by their dates
    and times)."""

    def __init__(
        self,
        page: Page,
        folder: Path,
        axe: Path | None = None,
        doc_images: Mapping[str, str] | None = None,
    ) -> None:
        self.page = page
        self.folder = folder
        self.axe = axe
        self.doc_images = doc_images or {}
        self.count = 0
        folder.mkdir(parents=True, exist_ok=True)

    def shot(
        self,
        name: str,
        *,
        scan: bool = False,
        of: Locator | None = None,
        docs: str | None = None,
    ) -> None:
        """A screenshot of the page, or of one element (`of`)."""
        self.count += 1
        path = self.folder / f"{self.count:02d}-{name}.png"
        (of or self.page).screenshot(path=path)
        picture = docs or self.doc_images.get(name)
        if picture is not None and os.environ.get(DOC_IMAGES_ENV) == "1":
            shutil.copyfile(path, DOC_IMAGES / f"{picture}.png")
        if scan and self.axe is not None:
            if not self.page.evaluate("typeof axe !== 'undefined'"):
                self.page.add_script_tag(path=self.axe)
            app = self.page.locator("assist-memory-app").element_handle()
            violations = self.page.evaluate(SCAN, app)
            assert violations == [], f"{name}: {json.dumps(violations, indent=1)}"


def walk_through(
    page: Page,
    app: Locator,
    words: Labels,
    screens: Screens,
    tmp: Path,
    *,
    routes: MemoryRoutes,
    converse: Callable[[str], None],
    compaction: bool,
) -> None:
    """Every screen: list, add, filter, search, edit, delete, MEMORY.md, logs,
    sessions, settings, compaction, export, clear all and import."""
    status = app.locator("p.status")
    memories = app.get_by_role("list", name=words.tab_memories)

    def tab(name: str) -> None:
        app.get_by_role("tab", name=name, exact=True).click()

    def item(text: str) -> Locator:
        """The list item of the memory with exactly this text (as shown: its first
        letter capitalised)."""
        return app.get_by_role("listitem").filter(
            has=page.get_by_text(shown(text), exact=True)
        )

    def chip(group: str, name: str) -> Locator:
        """A filter chip of one row (person, category, origin, last used)."""
        return app.get_by_role("group", name=group).get_by_role(
            "button", name=name, exact=True
        )

    def add(content: str, *, preference: bool = False) -> None:
        app.get_by_role("button", name=words.add).click()
        dialog = app.get_by_role("dialog")
        dialog.get_by_label(words.content).fill(content)
        if preference:
            dialog.get_by_label(words.category).select_option(label=words.preference)
            dialog.get_by_label(words.tags).fill(words.tea_tag)
            screens.shot("add-dialog", scan=True)
        dialog.get_by_role("button", name=words.save).click()
        expect(item(content)).to_be_visible()

    tab(words.tab_memories)
    expect(app.get_by_role("button", name=words.add)).to_be_visible()
    screens.shot("memories-at-start")
    # The main landmark, and the tabs pattern: arrow keys move between the tabs.
    expect(app.get_by_role("main")).to_be_visible()
    app.get_by_role("tab", name=words.tab_memories, exact=True).press("ArrowRight")
    expect(app.get_by_role("tab", name=words.tab_review, exact=True)).to_be_focused()
    expect(app.get_by_role("tabpanel")).to_have_attribute(
        "aria-labelledby", "tab-review"
    )
    app.get_by_role("tab", name=words.tab_review, exact=True).press("ArrowLeft")
    expect(
        app.get_by_role("tab", name=words.tab_memories, exact=True)
    ).to_have_attribute("tabindex", "0")
    add(words.tea, preference=True)
    add(words.cat)
    add(words.gone)
    add(words.tea_again)
    screens.shot("memories-list", scan=True)
    # Learned while the page is open: it appears, no reload needed.
    routes.add(words.live)
    expect(item(words.live)).to_be_visible()
    # A question whose answer is given the tea memories (seen under Sessions).
    converse(words.tea_question)

    # Filter by category (a chip, pressed from the keyboard) and order by use.
    preference = chip(words.category, words.preference)
    preference.focus()
    preference.press("Enter")
    expect(chip(words.category, words.preference)).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(item(words.cat)).to_have_count(0)
    expect(item(words.tea)).to_be_visible()
    app.get_by_label(words.order).select_option(label=words.most_used)
    screens.shot("memories-filtered", scan=True)
    chip(words.category, words.all_chip).click()
    expect(item(words.cat)).to_be_visible()

    # Search as you type: the words that matched are marked; the card is the same.
    search_box = app.get_by_role("searchbox", name=words.search_label)
    search_box.fill(words.search_words)
    found = memories.get_by_role("listitem").first
    expect(found.locator("mark").first).to_be_visible()
    expect(found.get_by_role("button", name=words.edit)).to_be_visible()
    # The cat shares no word with the search: if it comes (by meaning, on by
    # default), it comes with nothing marked.
    expect(item(words.cat).locator("mark")).to_have_count(0)
    screens.shot("search-results", scan=True)
    search_box.fill("")
    expect(item(words.cat)).to_be_visible()
    # Each memory says where it came from, once: added by hand here.
    expect(item(words.cat).locator(".provenance")).to_have_text(words.by_hand)
    item(words.cat).get_by_text(words.where_from).click()

    # Edit, then delete.
    tab(words.tab_memories)
    item(words.cat).get_by_role("button", name=words.edit).click()
    dialog = app.get_by_role("dialog")
    dialog.get_by_label(words.content).fill(words.cat_edited)
    screens.shot("edit-dialog")
    dialog.get_by_role("button", name=words.save).click()
    expect(item(words.cat_edited)).to_be_visible()
    expect(item(words.cat)).to_have_count(0)
    # Deleted at once, said at the top of the view; Undo brings the same memory back.
    gone_id = routes.memory_id(words.gone)
    item(words.gone).get_by_role("button", name=words.delete).click()
    expect(status).to_contain_text(words.deleted)
    expect(status).to_be_in_viewport()
    expect(item(words.gone)).to_have_count(0)
    screens.shot("deleted-with-undo", scan=True)
    status.get_by_role("button", name=words.undo_delete, exact=True).click()
    expect(status).to_have_text(words.restored)
    expect(item(words.gone)).to_be_visible()
    assert routes.memory_id(words.gone) == gone_id
    # Deleted meanwhile elsewhere: the manager says it was gone already. The live
    # update may take it off the list first (on a busy machine it did, and the click
    # waited for a button no longer there): then it is gone without a click.
    routes.delete(gone_id)
    try:
        item(words.gone).get_by_role("button", name=words.delete).click(timeout=3_000)
    except PlaywrightTimeoutError:
        expect(item(words.gone)).to_have_count(0)
    else:
        expect(status).to_have_text(words.already_gone)
        expect(status).to_be_in_viewport()
    expect(item(words.gone)).to_have_count(0)
    screens.shot("memories-after-edit-and-delete")

    # MEMORY.md: a line added there becomes a memory.
    tab(words.tab_documents)
    editor = app.get_by_role("textbox", name="MEMORY.md")
    expect(editor).to_have_value(re.compile(re.escape(words.cat_edited)))
    editor.fill(editor.input_value().rstrip() + f"\n- {words.boiler}\n")
    app.get_by_role("button", name=words.save_main).click()
    expect(status).to_contain_text(words.main_saved)
    screens.shot("memory-md", scan=True)

    # Today's log (written in UTC) holds the entry; the conversation has its summary.
    tab(words.tab_daily)
    today = datetime.now(UTC).date().isoformat()
    app.get_by_role("navigation", name=words.days).get_by_role(
        "button", name=today
    ).click()
    expect(app.get_by_role("article", name=today)).to_contain_text(words.logged)
    screens.shot("daily-logs", scan=True)
    tab(words.tab_sessions)
    conversation = (
        app.get_by_role("list", name=words.recent)
        .get_by_role("listitem")
        .filter(has=page.get_by_text(words.said, exact=True))
    )
    expect(conversation).to_be_visible()
    expect(conversation.locator("p").nth(1)).not_to_be_empty()
    expect(
        app.get_by_text(re.compile(r"[0-9a-f]{16,}|\b[0-9A-Z]{26}\b"))
    ).to_have_count(0)
    expect(app.get_by_text(words.turn_one, exact=True).first).to_be_visible()
    screens.shot("sessions")
    # Opened: its messages, and for the answer the memories it was given.
    asked = (
        app.get_by_role("list", name=words.recent)
        .get_by_role("listitem")
        .filter(has=page.get_by_text(words.tea_question, exact=True))
    )
    asked.get_by_role("button", name=words.open_conversation).click()
    asked.get_by_text(words.why).click()
    # The tea memory it was given: in Chinese, the English one (imported from the
    # English walk) may answer instead, the two Chinese copies standing lower.
    teas = {words.tea, ENGLISH.tea}
    expect(asked.locator("details.why")).to_contain_text(
        re.compile("|".join(re.escape(tea) for tea in teas))
    )
    screens.shot("why-did-assist-say-that", scan=True)
    # A conversation can be deleted (asked first).
    conversation.get_by_role("button", name=words.delete).click()
    app.get_by_role("dialog").get_by_role("button", name=words.delete).click()
    expect(status).to_have_text(words.conversation_deleted)
    expect(conversation).to_have_count(0)

    # Automatic memory off (kept after a reload of the tab), then on again.
    tab(words.tab_settings)
    switch = app.get_by_role("switch", name=words.auto_memory, exact=True)
    expect(switch).to_be_checked()
    switch.click()
    expect(status).to_have_text(words.auto_off)
    tab(words.tab_memories)
    tab(words.tab_settings)
    expect(switch).not_to_be_checked()
    screens.shot("settings-auto-off", scan=True)
    switch.click()
    expect(status).to_have_text(words.auto_on)

    # Tidying up: nothing to undo before the first; the duplicate tea memory is
    # merged away, then the undo brings it back.
    undo = app.get_by_role("button", name=words.undo)
    expect(undo).to_be_disabled()
    if compaction:
        # First what it would change (nothing applied yet), then Apply.
        app.get_by_role("button", name=words.compact).click()
        preview = app.get_by_role("region", name=words.compaction_preview)
        expect(preview.locator("del")).to_contain_text([words.tea_again])
        screens.shot("compaction-preview", scan=True)
        tab(words.tab_memories)
        expect(item(words.tea_again)).to_be_visible()
        tab(words.tab_settings)
        # Changed since the preview: applying says so and shows a fresh preview.
        routes.add(words.late)
        preview.get_by_role("button", name=words.apply).click()
        expect(status).to_contain_text(words.stale)
        expect(preview.locator("del")).to_contain_text([words.tea_again])
        preview.get_by_role("button", name=words.apply).click()
        expect(status).to_have_text(re.compile(words.compacted))
        # What it changed: the repeated tea memory taken away.
        changes = app.get_by_role("region", name=words.compaction_changes)
        expect(changes.locator("del")).to_contain_text([words.tea_again])
        screens.shot("compaction-result", scan=True)
        tab(words.tab_memories)
        expect(item(words.tea_again)).to_have_count(0)
        tab(words.tab_settings)
        expect(undo).to_be_enabled()
        undo.click()
        expect(status).to_have_text(words.undone)
        expect(undo).to_be_disabled()
        tab(words.tab_memories)
        expect(item(words.tea_again)).to_be_visible()
    else:
        expect(app.get_by_role("button", name=words.compact)).to_be_disabled()
        expect(app.get_by_text(words.not_enabled)).to_be_visible()
        screens.shot("compaction-not-enabled")

    # Review: what Assist learned by itself is kept; the repeated tea memory merged.
    routes.add(words.learned, source="inferred", confidence=0.6)
    # The chips: learned by Assist, used in an answer lately, never used.
    tab(words.tab_memories)
    chip(words.origin, words.learned_chip).click()
    expect(item(words.learned)).to_be_visible()
    expect(item(words.boiler)).to_have_count(0)
    chip(words.origin, words.any_chip).click()
    chip(words.last_used, words.recent_chip).click()
    expect(item(words.tea)).to_be_visible()
    expect(item(words.boiler)).to_have_count(0)
    chip(words.last_used, words.never_chip).click()
    expect(chip(words.last_used, words.never_chip)).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(item(words.boiler)).to_be_visible()
    expect(item(words.tea)).to_have_count(0)
    screens.shot("memories-never-used", scan=True)
    chip(words.last_used, words.any_chip).click()
    tab(words.tab_review)
    queue = app.get_by_role("list", name=words.to_check)
    learned = queue.locator(":scope > li").filter(has_text=words.learned)
    expect(learned).to_be_visible()
    screens.shot("review", scan=True)
    learned.get_by_role("button", name=words.keep).click()
    expect(learned).to_have_count(0)
    group = app.get_by_role("list", name=words.repeats).locator(":scope > li")
    group.filter(has_text=words.tea_again).get_by_role(
        "button", name=words.merge
    ).click()
    expect(status).to_contain_text(words.merged)
    tab(words.tab_memories)
    expect(item(words.tea).or_(item(words.tea_again))).to_have_count(1)

    # Export to a file, clear everything, import the file: ids and times come back.
    tab(words.tab_backup)
    exported = download(
        page, app.get_by_role("button", name=words.export), tmp / "a.json"
    )
    expect(status).to_contain_text(words.exported)
    screens.shot("exported")
    tab(words.tab_memories)
    app.get_by_role("button", name=words.clear).click()
    dialog = app.get_by_role("dialog")
    dialog.get_by_label(words.clear_prompt).fill(words.clear_word)
    screens.shot("clear-confirmation", scan=True)
    dialog.get_by_role("button", name=words.clear_confirm).click()
    expect(app.get_by_text(words.empty)).to_be_visible()
    tab(words.tab_backup)
    app.get_by_label(words.import_file).set_input_files(tmp / "a.json")
    app.get_by_role("button", name=words.import_button, exact=True).click()
    expect(status).to_contain_text(words.imported)
    screens.shot("imported", scan=True)
    # The same file again: nothing changed, and it says so.
    app.get_by_label(words.import_file).set_input_files(tmp / "a.json")
    app.get_by_role("button", name=words.import_button, exact=True).click()
    expect(status).to_contain_text(words.unchanged)
    tab(words.tab_memories)
    expect(memories).to_contain_text(words.boiler)
    tab(words.tab_backup)
    again = download(page, app.get_by_role("button", name=words.export), tmp / "b.json")
    assert stamps(again) == stamps(exported)


def shown(text: str) -> str:
    """A memory as the manager shows it: the first letter capitalised."""
    return text[:1].upper() + text[1:]


# How many memory cards start above the bottom of the window.
CARDS_ABOVE_THE_FOLD = """(app) => [...app.shadowRoot.querySelectorAll(".card")]
  .filter((card) => card.getBoundingClientRect().top < innerHeight).length"""


# Each tab's left and right edge, and whether the row of tabs scrolls sideways.
TAB_EDGES = """(app) => {
  const row = app.shadowRoot.querySelector("[role=tablist]");
  return {
    edges: [...row.querySelectorAll("[role=tab]")].map((tab) => {
      const box = tab.getBoundingClientRect();
      return [box.left, box.right];
    }),
    scrolls: row.scrollWidth > row.clientWidth,
  };
}"""


def every_tab_in_sight(page: Page, app: Locator, width: int) -> None:
    """Every tab inside the window's width at once: no row to scroll sideways."""
    found = page.evaluate(TAB_EDGES, app.element_handle())
    assert not found["scrolls"], found
    for left, right in found["edges"]:
        assert left >= 0, found
        assert right <= width, found
    for tab in app.get_by_role("tab").all():
        expect(tab).to_be_in_viewport()


def on_a_phone(
    page: Page,
    app: Locator,
    words: Labels,
    screens: Screens,
    docs: str | None = None,
) -> None:
    """390 × 844, light then dark: several memories above the fold, every tab in
    sight at once (the tab row wraps), nothing an accessibility scan finds. `docs`
    names the documentation's image of the light one."""
    page.set_viewport_size({"width": 390, "height": 844})
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        app.get_by_role("tab", name=words.tab_memories, exact=True).click()
        expect(app.locator(".card").first).to_be_visible()
        # Waited for: the list settles once every card has rendered (a busy machine
        # shows the first ones before the rest).
        with suppress(PlaywrightTimeoutError):
            page.wait_for_function(
                f"(app) => ({CARDS_ABOVE_THE_FOLD})(app) >= 3",
                arg=app.element_handle(),
                timeout=10_000,
            )
        above = page.evaluate(CARDS_ABOVE_THE_FOLD, app.element_handle())
        assert above >= 3, f"{above} memories above the fold"
        every_tab_in_sight(page, app, 390)
        screens.shot(
            f"phone-{scheme}", scan=True, docs=docs if scheme == "light" else None
        )


def survive_offline(
    page: Page,
    app: Locator,
    words: Labels,
    offline: Callable[[bool], None],
    *,
    message: str | None = None,
    screens: Screens | None = None,
) -> None:
    """Offline: a page that cannot load says why (`message`; by default that the
    memory service cannot be reached), in the reader's language, with Retry; a memory
    that cannot be saved keeps its text in the open dialog for another try."""
    message = message or words.offline
    app.get_by_role("tab", name=words.tab_memories, exact=True).click()
    expect(app.get_by_role("button", name=words.add)).to_be_visible()
    offline(True)
    app.get_by_role("button", name=words.add).click()
    dialog = app.get_by_role("dialog")
    dialog.get_by_label(words.content).fill(words.boiler + "!")
    dialog.get_by_role("button", name=words.save).click()
    expect(dialog.get_by_role("alert")).to_contain_text(message)
    expect(dialog.get_by_label(words.content)).to_have_value(words.boiler + "!")
    offline(False)
    dialog.get_by_role("button", name=words.save).click()
    expect(dialog).to_have_count(0)
    expect(app.get_by_text(words.boiler + "!", exact=True)).to_be_visible()
    offline(True)
    app.get_by_role("tab", name=words.tab_sessions, exact=True).click()
    alert = app.locator(".messages p.alert")
    expect(alert).to_contain_text(message)
    expect(alert).not_to_contain_text("fetch")
    if screens is not None:
        screens.shot("retry", scan=True)
    offline(False)
    alert.get_by_role("button", name=words.retry).click()
    expect(alert).to_be_hidden()
    expect(app.get_by_role("heading", name=words.recent)).to_be_visible()


def download(page: Page, button: Locator, path: Path) -> dict[str, object]:
    """Click an export button; the downloaded file's JSON."""
    with page.expect_download() as info:
        button.click()
    info.value.save_as(path)
    document: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    return document


def stamps(document: dict[str, object]) -> set[tuple[str, str, str]]:
    """Each exported memory's id, content and creation time."""
    records = document["memories"]
    assert isinstance(records, list)
    return {(m["id"], m["content"], m["created_at"]) for m in records}


def five_thousand(path: Path) -> dict[str, object]:
    """An export document of 5 000 memories with longer texts (about 5 MiB: more than
    one Home Assistant websocket message takes), written to `path`."""
    details = " Ask before moving it; it opens the shed and the garage." * 15
    memories = [
        {
            "id": f"{n:016x}",
            "content": f"Round trip memory number {n}: the spare key is in drawer {n}."
            + details,
            "category": "fact",
            "tags": ["round-trip"],
            "created_at": f"2025-01-01T00:00:{n % 60:02d}+00:00",
        }
        for n in range(5000)
    ]
    document: dict[str, object] = {"memories": memories, "count": len(memories)}
    path.write_text(json.dumps(document), encoding="utf-8")
    assert path.stat().st_size > 4 * 1024 * 1024
    return document


def round_trip(
    page: Page, app: Locator, screens: Screens, tmp: Path, person: str | None = None
) -> None:
    """5 000 memories through the UI (English): an import over the limit says how to
    raise it; raised under Settings, the import (asked first: it replaces) takes
    them all, and an export gives back the same ids, texts and times, also as CSV.
    With `person` (a name the host knows), the selected memories move to them."""
    status = app.locator("p.status")
    alert = app.locator(".messages p.alert")
    source = five_thousand(tmp / "5000.json")

    def tab(name: str) -> None:
        app.get_by_role("tab", name=name, exact=True).click()

    def import_replacing() -> None:
        tab("Export & import")
        app.get_by_label("File to import").set_input_files(tmp / "5000.json")
        app.get_by_role("combobox", name=re.compile("^How")).select_option(
            label="Replace all current memories"
        )
        app.get_by_role("button", name="Import", exact=True).click()
        dialog = app.get_by_role("dialog")
        expect(dialog).to_contain_text("the 5000 in the file take their place")
        dialog.get_by_role("button", name="Replace all").click()

    import_replacing()
    expect(alert).to_contain_text("The file holds 5000 memories, more than the limit")
    expect(alert).to_contain_text("Raise “Most memories kept” under Settings")
    screens.shot("import-over-the-limit", scan=True)
    tab("Settings")
    app.get_by_text("Advanced", exact=True).click()
    app.get_by_label("Most memories kept").fill("6000")
    app.get_by_role("button", name="Save settings").click()
    expect(status).to_have_text("Settings saved.")
    import_replacing()
    expect(status).to_contain_text("Imported: 5000 added", timeout=60_000)
    tab("Memories")
    expect(app.get_by_text("5000 of 6000 memories")).to_be_visible()
    screens.shot("5000-memories")
    # Several at once: selected, deleted, brought back with Undo, exported.
    cards = app.get_by_role("list", name="Memories").get_by_role("listitem")
    chosen = [cards.nth(n).locator("p.content").inner_text() for n in (0, 1)]
    for text in chosen:
        app.get_by_role("checkbox", name=f"Select: {text}").check()
    expect(app.get_by_text("2 selected")).to_be_visible()
    screens.shot("two-selected", scan=True)
    app.get_by_role("button", name="Delete selected").click()
    expect(status).to_contain_text("2 memories deleted.")
    expect(app.get_by_text("4998 of 6000 memories")).to_be_visible()
    status.get_by_role("button", name="Undo", exact=True).click()
    expect(status).to_have_text("2 memories restored.")
    expect(app.get_by_text("5000 of 6000 memories")).to_be_visible()
    chosen = [cards.nth(n).locator("p.content").inner_text() for n in (2, 3)]
    for text in chosen:
        app.get_by_role("checkbox", name=f"Select: {text}").check()
    selection = download(
        page, app.get_by_role("button", name="Export selected"), tmp / "two.json"
    )
    assert sorted(m["content"] for m in selection["memories"]) == sorted(chosen)
    if person is not None:
        app.get_by_role("combobox", name=re.compile("^Move to")).select_option(
            label=person
        )
        app.get_by_role("button", name="Move", exact=True).click()
        expect(status).to_have_text(f"2 memories are now about {person}.")
        for text in chosen:
            moved = cards.filter(has=page.get_by_text(text, exact=True))
            expect(moved.locator(".person")).to_have_text(person)
    tab("Export & import")
    exported = download(
        page, app.get_by_role("button", name="Export to a file"), tmp / "back.json"
    )
    assert stamps(exported) == stamps(source)
    app.get_by_label("Format").select_option(label="CSV (spreadsheet)")
    with page.expect_download() as info:
        app.get_by_role("button", name="Export to a file").click()
    info.value.save_as(tmp / "back.csv")
    rows = (tmp / "back.csv").read_text(encoding="utf-8-sig").splitlines()
    assert len(rows) == 5001
    assert rows[0].startswith('"id","content","category","person"')
    assert "Round trip memory number" in rows[1]
