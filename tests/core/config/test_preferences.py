"""Preferences (Settings) and per-conversation overrides: bounds, tolerant
reads, atomic saves, merging, the store (schema v3, v2 → v3 migration),
export/import and the local backend's load options."""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import sqlite3
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import app.core.store as store_mod
import app.core.store.opening as store_opening
from app.core.backends.base import SamplingParams
from app.core.base import settings
from app.core.config import preferences
from app.core.config.preferences import (
    FIELDS,
    PREFERENCES_KEY,
    RANDOM_SEED,
    SAMPLING_FIELDS,
    ConversationSettings,
    Preferences,
    conversation_settings,
    load_preferences,
    merge,
    save_preferences,
)
from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT, Conversation, Message
from app.core.models.paths import DEFAULT_N_CTX
from app.core.store import (
    ConversationInfo,
    Store,
    conversation_from_info,
    exchange,
    info_from_conversation,
)


def _load(store: Store, conversation_id: str) -> Conversation | None:
    """The conversation as the window loads it (``ConversationLibrary.load``)."""
    info = store.get_conversation(conversation_id)
    return None if info is None else conversation_from_info(info, store.load_messages(conversation_id))



@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "config" / "settings.json"


def plain(message: str) -> None:
    """A message for people: one line, no Python words."""
    assert message and "\n" not in message
    for bad in ("Traceback", "None", "Error", "float", "int(", "NaN"):
        assert bad not in message, message


# -- defaults ------------------------------------------------------------------------------


def test_defaults_are_the_backend_defaults_and_valid() -> None:
    prefs = Preferences()
    assert prefs.sampling_params() == SamplingParams()
    assert prefs.n_ctx == DEFAULT_N_CTX and prefs.n_threads is None and prefs.n_gpu_layers == 0
    assert prefs.system_prompt == DEFAULT_SYSTEM_PROMPT and prefs.seed is None
    assert prefs.validate() == {}
    assert prefs.warnings() == {}


# -- bounds of every field -------------------------------------------------------------------

BOUNDS = {
    # name: (lowest allowed, highest allowed, just below, just above)
    "temperature": (0.0, 2.0, -0.01, 2.01),
    "top_p": (0.0, 1.0, -0.01, 1.01),
    "top_k": (0, 1000, -1, 1001),
    "min_p": (0.0, 1.0, -0.01, 1.01),
    "repeat_penalty": (0.5, 2.0, 0.49, 2.01),
    "max_tokens": (1, DEFAULT_N_CTX, 0, DEFAULT_N_CTX + 1),  # at most the context length
    "seed": (0, 2**31 - 1, -1, 2**31),
    "n_ctx": (512, 131072, 256, 131072 + 256),
    "n_gpu_layers": (-1, 999, -2, 1000),
}


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_each_field_accepts_its_bounds_and_refuses_beyond(name: str) -> None:
    low, high, below, above = BOUNDS[name]
    for good in (low, high):
        prefs = dataclasses.replace(Preferences(), **{name: good})
        if name == "n_ctx":
            prefs = dataclasses.replace(prefs, max_tokens=min(prefs.max_tokens, good))
        assert prefs.validate() == {}, (name, good)
    for bad in (below, above):
        base = Preferences(max_tokens=256) if name == "n_ctx" else Preferences()
        problems = dataclasses.replace(base, **{name: bad}).validate()
        assert list(problems) == [name], (name, bad, problems)
        for message in problems[name]:
            plain(message)
        assert FIELDS[name].label in problems[name][0]


@pytest.mark.parametrize("name", [f.name for f in SAMPLING_FIELDS] + ["n_ctx", "n_gpu_layers", "seed"])
@pytest.mark.parametrize("bad", ["1", True, math.nan, math.inf, None, [1]])
def test_each_number_field_refuses_what_is_not_a_number(name: str, bad: Any) -> None:
    if bad is None and name == "seed":
        return  # None is "random"
    problems = dataclasses.replace(Preferences(), **{name: bad}).validate()
    assert name in problems
    plain(problems[name][0])


def test_whole_number_fields_refuse_fractions() -> None:
    assert "top_k" in dataclasses.replace(Preferences(), top_k=4.5).validate()
    assert dataclasses.replace(Preferences(), top_k=40.0).validate() == {}


def test_context_length_must_be_a_multiple_of_256() -> None:
    problems = dataclasses.replace(Preferences(), n_ctx=1000).validate()
    assert problems["n_ctx"] == ["Context length must be a multiple of 256 (for example 768 or 1,024)."]


def test_max_tokens_is_bounded_by_the_context_length() -> None:
    prefs = dataclasses.replace(Preferences(), n_ctx=1024, max_tokens=2048)
    assert prefs.validate() == {
        "max_tokens": ["Max reply tokens must be at most the context length (1,024; it is 2,048)."]}
    assert dataclasses.replace(prefs, max_tokens=1024).validate() == {}


def test_threads_automatic_or_one_to_the_cpu_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    assert dataclasses.replace(Preferences(), n_threads=None).validate() == {}
    assert dataclasses.replace(Preferences(), n_threads=1).validate() == {}
    assert dataclasses.replace(Preferences(), n_threads=4).validate() == {}
    for bad in (0, 5, -1):
        problems = dataclasses.replace(Preferences(), n_threads=bad).validate()
        assert problems["n_threads"] == [f"CPU threads must be between 1 and 4 (it is {bad})."]


def test_system_prompt_text_length_and_nul() -> None:
    assert dataclasses.replace(Preferences(), system_prompt="").validate() == {}
    assert dataclasses.replace(Preferences(), system_prompt="界" * 8000).validate() == {}
    long = dataclasses.replace(Preferences(), system_prompt="x" * 8001).validate()
    assert long["system_prompt"] == ["The system prompt is too long: 8,001 characters (at most 8,000)."]
    assert "system_prompt" in dataclasses.replace(Preferences(), system_prompt="a\x00b").validate()
    assert "system_prompt" in dataclasses.replace(Preferences(), system_prompt=3).validate()


def test_several_problems_are_all_reported() -> None:
    prefs = dataclasses.replace(Preferences(), temperature=5, n_ctx=700, system_prompt="x" * 9000)
    assert set(prefs.validate()) == {"temperature", "n_ctx", "max_tokens", "system_prompt"}


def test_a_context_beyond_the_trained_one_is_a_warning_not_an_error() -> None:
    prefs = dataclasses.replace(Preferences(), n_ctx=8192)
    assert prefs.validate() == {}
    assert prefs.warnings(trained_ctx=None) == {}
    assert prefs.warnings(trained_ctx=8192) == {}
    assert prefs.warnings(trained_ctx=2048) == {"n_ctx": [
        "The model was trained with a context of 2,048 tokens; beyond that its replies may get worse."]}


# -- the settings file ----------------------------------------------------------------------


def test_missing_file_or_key_gives_the_defaults_silently(path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert load_preferences(path) == Preferences()
        settings.save_settings({"last_model": "/m.gguf"}, path)
        assert load_preferences(path) == Preferences()
    assert not caplog.records


def test_save_and_load_round_trip_keeps_other_keys(path: Path) -> None:
    settings.save_settings({"last_model": "/m.gguf", "servers": [{"id": "s"}]}, path)
    prefs = Preferences(temperature=1.25, top_p=0.5, top_k=0, min_p=0.0, repeat_penalty=1.0, max_tokens=300,
                        seed=42, n_ctx=2048, n_threads=1, n_gpu_layers=-1, system_prompt="Réponds en français. 👋")
    assert save_preferences(prefs, path)
    assert load_preferences(path) == prefs
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["last_model"] == "/m.gguf" and data["servers"] == [{"id": "s"}]
    assert data[PREFERENCES_KEY]["seed"] == 42 and data[PREFERENCES_KEY]["n_threads"] == 1
    assert "👋" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("text", ["not json {", "[1, 2]", '"text"', "\x00\x01", '{"preferences": 3}',
                                  '{"preferences": [1]}', '{"preferences": null}'])
def test_a_garbage_file_gives_the_defaults(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True)
    path.write_text(text, encoding="utf-8")
    assert load_preferences(path) == Preferences()


def test_garbage_fields_fall_back_one_by_one_with_a_warning(path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings.save_settings({PREFERENCES_KEY: {
        "temperature": "hot", "top_p": 0.5, "top_k": 1e9, "min_p": None, "repeat_penalty": True,
        "max_tokens": 256, "seed": -5, "n_ctx": 1000, "n_threads": 10**6, "n_gpu_layers": 12,
        "system_prompt": ["not", "text"], "colour": "blue",
    }}, path)
    with caplog.at_level(logging.WARNING, logger="app.core.config.preferences"):
        prefs = load_preferences(path)
    d = Preferences()
    assert prefs == dataclasses.replace(d, top_p=0.5, max_tokens=256, n_gpu_layers=12)
    warned = " ".join(r.getMessage() for r in caplog.records)
    for name in ("temperature", "top_k", "min_p", "repeat_penalty", "seed", "n_ctx", "n_threads", "system_prompt"):
        assert f"preferences.{name}" in warned
    assert "top_p" not in warned and "colour" not in warned


def test_whole_numbers_written_as_floats_are_read(path: Path) -> None:
    settings.save_settings({PREFERENCES_KEY: {"top_k": 20.0, "n_ctx": 2048.0, "temperature": 1}}, path)
    prefs = load_preferences(path)
    assert (prefs.top_k, prefs.n_ctx, prefs.temperature) == (20, 2048, 1.0)
    assert type(prefs.top_k) is int and type(prefs.temperature) is float


def test_max_tokens_beyond_the_context_is_clamped_on_load(path: Path, caplog: pytest.LogCaptureFixture) -> None:
    settings.save_settings({PREFERENCES_KEY: {"n_ctx": 1024, "max_tokens": 4000}}, path)
    with caplog.at_level(logging.WARNING):
        prefs = load_preferences(path)
    assert (prefs.n_ctx, prefs.max_tokens) == (1024, 1024)
    assert "max_tokens" in caplog.text


def test_a_machine_with_fewer_cpus_gets_automatic_threads(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings.save_settings({PREFERENCES_KEY: {"n_threads": 8}}, path)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert load_preferences(path).n_threads is None


def test_save_is_atomic_a_failed_write_leaves_the_old_file(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = Preferences(temperature=0.3)
    assert save_preferences(old, path)
    before = path.read_bytes()

    def broken_replace(src: Any, dst: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(settings.os, "replace", broken_replace)
    assert save_preferences(Preferences(temperature=1.9), path) is False
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["settings.json"]  # no temp file left
    assert load_preferences(path) == old


def test_save_goes_through_save_settings(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(settings, "save_settings", lambda data, p=None: calls.append(data) or True)
    assert save_preferences(Preferences(top_k=7), path)
    assert calls[0][PREFERENCES_KEY]["top_k"] == 7


def test_save_refuses_invalid_preferences(path: Path) -> None:
    with pytest.raises(ValueError, match="multiple of 256"):
        save_preferences(Preferences(n_ctx=1000), path)
    assert not path.exists()


def test_save_refuses_a_file_that_would_be_too_large_to_read_back(path: Path) -> None:
    settings.save_settings({"servers": ["x" * 60000]}, path)
    before = path.read_bytes()
    assert save_preferences(Preferences(system_prompt="y" * 7000), path) is False
    assert path.read_bytes() == before  # everything else kept readable


def test_reset_to_defaults(path: Path) -> None:
    assert save_preferences(Preferences(temperature=1.5, n_ctx=8192, seed=3), path)
    assert save_preferences(Preferences(), path)
    assert load_preferences(path) == Preferences()


def test_model_options_for_the_backend() -> None:
    assert Preferences().model_options() == {"n_ctx": DEFAULT_N_CTX, "n_threads": None,
                                             "n_threads_batch": None, "n_gpu_layers": 0}
    assert Preferences(n_ctx=2048, n_threads=2, n_gpu_layers=-1).model_options() == {
        "n_ctx": 2048, "n_threads": 2, "n_threads_batch": 2, "n_gpu_layers": -1}


# -- per-conversation overrides --------------------------------------------------------------


def test_conversation_settings_round_trip_and_random_seed() -> None:
    cs = ConversationSettings(system_prompt="", temperature=0.1, max_tokens=64, seed=RANDOM_SEED,
                              extra={"stop": ["\n\n"]})
    assert cs.overridden == ("system_prompt", "temperature", "max_tokens", "seed")
    assert cs.params() == {"stop": ["\n\n"], "temperature": 0.1, "max_tokens": 64, "seed": None}
    assert cs.to_dict() == cs.params() | {"system_prompt": ""}
    assert ConversationSettings.from_dict(cs.to_dict()) == cs
    assert ConversationSettings.from_store("", cs.params()) == cs
    assert ConversationSettings.from_dict({"seed": 9}).seed == 9
    assert ConversationSettings.from_dict({}).overridden == ()
    assert ConversationSettings.from_dict(None) == ConversationSettings()


def test_conversation_settings_read_tolerantly(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        cs = ConversationSettings.from_dict({"temperature": "warm", "top_k": 5.0, "seed": 2**40,
                                             "system_prompt": 7, "min_p": 2, "repeat_penalty": 1.2,
                                             "mirostat": 2})
    assert cs == ConversationSettings(top_k=5, repeat_penalty=1.2, extra={"mirostat": 2})
    for name in ("temperature", "seed", "system_prompt", "min_p"):
        assert name in caplog.text


def test_conversation_settings_validate() -> None:
    assert ConversationSettings(temperature=2.0, seed=RANDOM_SEED).validate() == {}
    problems = ConversationSettings(temperature=3.0, seed=-1, system_prompt="x" * 9000).validate()
    assert set(problems) == {"temperature", "seed", "system_prompt"}


def test_merge_overrides_over_the_preferences() -> None:
    prefs = Preferences(temperature=0.6, top_k=40, seed=5, system_prompt="Default prompt.")
    assert prefs.reply_settings() == prefs.reply_settings(ConversationSettings())
    plain_reply = prefs.reply_settings(ConversationSettings())
    assert plain_reply.params == prefs.sampling_params() and plain_reply.system_prompt == "Default prompt."
    reply = prefs.reply_settings(ConversationSettings(temperature=1.5, seed=RANDOM_SEED, system_prompt=""))
    assert reply.params == dataclasses.replace(prefs.sampling_params(), temperature=1.5, seed=None)
    assert reply.system_prompt == ""  # its own: none at all
    fixed = merge(SamplingParams(), "p", ConversationSettings(seed=11, max_tokens=9))
    assert (fixed.params.seed, fixed.params.max_tokens, fixed.system_prompt) == (11, 9, "p")


def test_a_conversation_carries_its_overrides() -> None:
    conv = Conversation(overrides={"temperature": 0.2, "system_prompt": "Terse."})
    assert conversation_settings(conv) == ConversationSettings(system_prompt="Terse.", temperature=0.2)
    again = conversation_from_info(info_from_conversation(conv), [])
    assert again.overrides == conv.overrides
    conv.add_user("hi")
    prompt = conv.prompt_builder(system_prompt="Chosen now.")()
    assert prompt[0].content == "Chosen now."
    assert conv.prompt_builder()()[0].content == DEFAULT_SYSTEM_PROMPT


# -- the store -------------------------------------------------------------------------------


def test_overrides_persist_through_the_store(tmp_path: Path) -> None:
    db = tmp_path / "rill.db"
    conv = Conversation(title="tuned", overrides=ConversationSettings(
        system_prompt="Answer in haiku.", top_p=0.5, seed=RANDOM_SEED, extra={"stop": ["END"]}).to_dict())
    follows = Conversation(title="plain")
    s = Store.open(db).store
    assert s is not None
    s.create_conversation(info_from_conversation(conv))
    s.add_message(conv.id, Message("user", "hello"))
    s.create_conversation(info_from_conversation(follows))
    s.close()

    s = Store.open(db).store
    assert s is not None
    info = s.get_conversation(conv.id)
    assert info is not None and info.system_prompt == "Answer in haiku."
    assert info.params == {"stop": ["END"], "top_p": 0.5, "seed": None}
    loaded = _load(s, conv.id)
    assert loaded is not None and loaded.overrides == conv.overrides
    assert conversation_settings(loaded) == conversation_settings(conv)
    other = s.get_conversation(follows.id)
    assert other is not None and other.system_prompt is None and other.params == {}
    # back to following Settings
    s.update_conversation(conv.id, system_prompt=None, params={})
    s.close()
    s = Store.open(db).store
    assert s is not None
    again = _load(s, conv.id)
    assert again is not None and again.overrides == {} and again.system_prompt == DEFAULT_SYSTEM_PROMPT
    s.close()


def make_v2_database(path: Path) -> None:
    """A database exactly as Rill with schema v2 left it (its migrations,
    verbatim), with conversations as that Rill wrote them."""
    conn = sqlite3.connect(path, isolation_level=None)
    store_mod.search.register_functions(conn)
    conn.execute("BEGIN")
    store_mod.MIGRATIONS[0](conn)
    store_mod.MIGRATIONS[1](conn)
    conn.execute("PRAGMA user_version = 2")
    conn.execute("COMMIT")
    rows = [
        ("c-default", "Default", DEFAULT_SYSTEM_PROMPT, "{}"),
        ("c-own", "Own prompt", "Be a pirate.", '{"temperature": 0.9, "seed": 4}'),
        ("c-none", "No prompt", "", "{}"),
        ("c-null", "Null prompt", None, None),
        ("c-junk", "Junk params", DEFAULT_SYSTEM_PROMPT, "not json"),
    ]
    for i, (cid, title, prompt, params) in enumerate(rows):
        conn.execute(
            "INSERT INTO conversations (id, title, created_at, updated_at, pinned, model, system_prompt, params, "
            "current_leaf) VALUES (?, ?, ?, ?, 0, 'm.gguf', ?, ?, NULL)",
            (cid, title, 1.0 + i, 2.0 + i, prompt, params),
        )
        conn.execute(
            "INSERT INTO messages (id, conversation_id, parent_id, role, content, status, created_at) "
            "VALUES (?, ?, NULL, 'user', ?, 'complete', ?)",
            (f"{cid}-m", cid, f"question about 界面 in {title}", 10.0 + i),
        )
    conn.execute("PRAGMA journal_mode=WAL")
    conn.close()


def test_upgrade_from_v2_keeps_data_and_maps_system_prompts(tmp_path: Path) -> None:
    db = tmp_path / "rill.db"
    make_v2_database(db)
    result = Store.open(db)
    assert result.store is not None and result.notices == [] and not result.read_only
    s = result.store
    assert s.conn.execute("PRAGMA user_version").fetchone()[0] == store_mod.SCHEMA_VERSION == 6
    got = {i.id: i for i in s.list_conversations()}
    assert len(got) == 5
    # the built-in default now follows Settings; the rest keeps its meaning
    assert got["c-default"].system_prompt is None
    assert got["c-own"].system_prompt == "Be a pirate."
    assert got["c-own"].params == {"temperature": 0.9, "seed": 4}
    assert got["c-none"].system_prompt == ""
    assert got["c-null"].system_prompt == ""  # v2 sent no system prompt for NULL: still none
    assert got["c-junk"].system_prompt is None and got["c-junk"].params == {}
    own = _load(s, "c-own")
    assert own is not None
    reply = Preferences(system_prompt="Mine.").reply_settings(conversation_settings(own))
    assert reply.system_prompt == "Be a pirate." and reply.params.temperature == 0.9 and reply.params.seed == 4
    default = _load(s, "c-default")
    assert default is not None
    assert Preferences(system_prompt="Mine.").reply_settings(conversation_settings(default)).system_prompt == "Mine."
    assert [m.content for m in s.load_messages("c-own")] == ["question about 界面 in Own prompt"]
    assert len(s.search("界面")) == 5
    assert s.integrity_ok()
    s.close()


def test_a_v3_database_is_refused_by_a_v2_rill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "rill.db"
    s = Store.open(db).store
    assert s is not None
    s.close()
    monkeypatch.setattr(store_opening, "SCHEMA_VERSION", 2)
    result = Store.open(db)
    assert result.store is None and "newer version" in result.notices[0]


# -- export and import -------------------------------------------------------------------------


def test_export_and_import_carry_the_overrides(tmp_path: Path) -> None:
    a = Store.open(tmp_path / "a.db").store
    b = Store.open(tmp_path / "b.db").store
    assert a is not None and b is not None
    own = ConversationInfo(id="own", title="own", system_prompt="Speak like Yoda.",
                           params={"temperature": 1.1, "seed": None, "top_k": 5})
    follows = ConversationInfo(id="follows", title="follows")
    for info in (own, follows):
        a.create_conversation(info)
        a.add_message(info.id, Message("user", "hi", id=f"{info.id}-m"))
    text = exchange.export_json(a)
    doc = json.loads(text)
    by_id = {c["id"]: c for c in doc["conversations"]}
    assert by_id["own"]["system_prompt"] == "Speak like Yoda."
    assert by_id["own"]["params"] == {"temperature": 1.1, "seed": None, "top_k": 5}
    assert "system_prompt" not in by_id["follows"]  # follows the default of Settings
    exchange.import_json(b, text)
    got = b.get_conversation("own")
    assert got is not None and (got.system_prompt, got.params) == (own.system_prompt, own.params)
    again = b.get_conversation("follows")
    assert again is not None and again.system_prompt is None
    assert exchange.export_json(b).split('"conversations"')[1] == text.split('"conversations"')[1]
    a.close()
    b.close()


def test_an_export_from_before_settings_follows_the_default(tmp_path: Path) -> None:
    s = Store.open(tmp_path / "a.db").store
    assert s is not None
    old = {"format": "rill.export", "version": 1, "conversations": [
        {"id": "old", "system_prompt": DEFAULT_SYSTEM_PROMPT, "params": {}, "messages": []},
        {"id": "mine", "system_prompt": "Mine.", "messages": []}]}
    exchange.import_json(s, json.dumps(old))
    assert s.get_conversation("old").system_prompt is None
    assert s.get_conversation("mine").system_prompt == "Mine."
    s.close()


# -- the local backend's load options ----------------------------------------------------------


def test_local_factory_reads_the_model_settings_when_it_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.core import factory
    from app.core.backends.llama import backend as llama_backend
    from app.core.conversation.model import DEFAULT_SYSTEM_PROMPT

    made: list[dict[str, Any]] = []

    class Recorder:
        def __init__(self, path: Any, warm_up_system_prompt: str = "", **kwargs: Any) -> None:
            assert warm_up_system_prompt == DEFAULT_SYSTEM_PROMPT  # primed while loading
            made.append({"path": path, **kwargs})

    monkeypatch.setattr(llama_backend, "LlamaBackend", Recorder)
    make, _ = factory.local_factory(tmp_path / "m.gguf")
    assert save_preferences(Preferences(n_ctx=2048, n_threads=1, n_gpu_layers=3))
    make()
    assert made[-1] == {"path": tmp_path / "m.gguf", "n_ctx": 2048, "n_threads": 1, "n_threads_batch": 1,
                        "n_gpu_layers": 3}
    assert save_preferences(Preferences(n_ctx=1024))
    make()  # the same factory (Reload model now) takes the new values
    assert made[-1]["n_ctx"] == 1024 and made[-1]["n_threads"] is None
    explicit, _ = factory.local_factory(tmp_path / "m.gguf", {"n_ctx": 512})
    explicit()
    assert made[-1] == {"path": tmp_path / "m.gguf", "n_ctx": 512}


def test_llama_backend_takes_gpu_layers() -> None:
    from app.core.backends.llama.backend import LlamaBackend

    assert LlamaBackend("/nope.gguf").n_gpu_layers == 0
    assert LlamaBackend("/nope.gguf", n_ctx=2048, n_gpu_layers=-1).n_gpu_layers == -1


# -- GPU offload detection -------------------------------------------------------------------------


def test_gpu_offload_is_asked_of_an_imported_llama_cpp(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preferences, "_gpu_supported", None)
    fake = types.SimpleNamespace(llama_supports_gpu_offload=lambda: True)
    monkeypatch.setitem(sys.modules, "llama_cpp", fake)
    assert preferences.gpu_offload_supported() is True
    assert preferences.detect_gpu_offload() is True


def test_gpu_offload_unknown_until_llama_cpp_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preferences, "_gpu_supported", None)
    monkeypatch.delitem(sys.modules, "llama_cpp", raising=False)
    assert preferences.gpu_offload_supported() is None
    broken = types.SimpleNamespace(llama_supports_gpu_offload=lambda: 1 / 0)
    monkeypatch.setitem(sys.modules, "llama_cpp", broken)
    assert preferences.detect_gpu_offload() is False  # an odd build counts as no GPU


def test_overflow_policy_is_validated_and_tolerated() -> None:
    assert Preferences(overflow="stop").validate() == {}
    assert "overflow" in Preferences(overflow="sideways").validate()
    assert Preferences.from_dict({"overflow": "sideways"}).overflow == "rolling"
    assert Preferences.from_dict({"overflow": "middle"}).overflow == "middle"
