"""ServerDrafts: the servers as the Servers dialog edits them: unique new
names, undoable removals, validation, and what Save tells the keyring."""

from __future__ import annotations

from app.core.backends.remote.servers import DEFAULT_URLS, OLLAMA, OPENAI, ServerConfig
from app.ui.dialogs.server_drafts import ServerDraft, ServerDrafts, is_default_url


def saved(*names: str) -> list[ServerConfig]:
    return [ServerConfig(name, OPENAI, "http://127.0.0.1:8080", id=f"id-{name}") for name in names]


def test_new_servers_get_names_no_other_has(qapp) -> None:
    drafts = ServerDrafts(saved("New server"))
    assert [drafts.add("a").name, drafts.add("b").name] == ["New server 2", "New server 3"]
    added = drafts.at(2)
    assert added is not None and added.id == "b" and added.base_url == DEFAULT_URLS[OPENAI]
    assert drafts.at(3) is None and drafts.at(-1) is None and len(drafts) == 3


def test_a_removal_is_undone_where_it_was_and_drops_a_pending_answer(qapp) -> None:
    drafts = ServerDrafts(saved("A", "B", "C"))
    b = drafts.at(1)
    assert b is not None
    b.busy, token = True, b.token
    assert drafts.remove(1) is b and not b.busy and b.token == token + 1
    assert drafts.remove(7) is None
    assert [d.name for d in drafts.all()] == ["A", "C"] and drafts.last_removed is b
    assert [d.name for d in drafts.with_removed()] == ["A", "C", "B"]
    assert drafts.undo_remove() == (1, b)
    assert [d.name for d in drafts.all()] == ["A", "B", "C"] and drafts.last_removed is None
    assert drafts.undo_remove() is None
    assert drafts.row_of("id-C") == 2 and drafts.row_of("nope") == -1


def test_validation_refuses_a_name_taken_whatever_its_case(qapp) -> None:
    drafts = ServerDrafts(saved("Desk", "Laptop"))
    laptop = drafts.at(1)
    assert laptop is not None
    config, message = drafts.validate(laptop)
    assert config is not None and config.name == "Laptop" and message == ""
    laptop.name = " desk "
    config, message = drafts.validate(laptop)
    assert config is None and message == "Another server is already named “desk”."
    laptop.base_url = "not a url"
    assert drafts.validate(laptop)[0] is None
    assert ServerDraft(id="x", name="").label() == "(no name)"


def test_save_writes_the_changed_keys_and_deletes_those_of_removed_servers(qapp) -> None:
    drafts = ServerDrafts(saved("A", "B"), {"id-A": ["m1"]})
    a, b = drafts.all()
    assert a.models == ["m1"] and a.key is None  # not read from the keyring yet
    a.key = a.saved_key = "same"
    b.key, b.saved_key = "new", "old"
    drafts.remove(0)
    fresh = drafts.add("c")
    fresh.key = ""  # typed nothing, stored nothing: no change
    assert drafts.key_changes() == [("id-B", "new"), ("id-A", "")]
    drafts.mark_saved()
    assert drafts.last_removed is None and drafts.key_changes() == [("id-B", "new")]
    b.key = "newer"  # typed again while the first write was on its way
    drafts.keys_written([("id-B", "new")])
    assert b.saved_key == "old"
    drafts.keys_written([("id-B", "newer")])
    assert b.saved_key == "newer" and drafts.key_changes() == []


def test_only_empty_and_default_addresses_follow_the_kind() -> None:
    assert is_default_url("") and is_default_url("  ")
    assert is_default_url(DEFAULT_URLS[OLLAMA]) and is_default_url(DEFAULT_URLS[OPENAI])
    assert not is_default_url("http://nas.local:11434")
    assert not is_default_url("ftp://nowhere")


def test_a_fetch_answer_sets_the_status_unless_it_is_stale(qapp) -> None:
    [config] = saved("Desk")
    draft = ServerDraft.of(config, [])
    first = draft.start_fetch("Testing…")
    assert draft.busy and draft.status == ("Testing…", "busy")
    second = draft.start_fetch("Fetching the model list…")  # asked again: the first answer is stale
    assert not draft.take_answer(first, config, True, (["a"], ""), None) and draft.busy
    assert draft.take_answer(second, config, True, (["qwen"], ""), None)
    assert not draft.busy and draft.models == ["qwen"] and draft.status == ("Connected — 1 model", "ok")
    third = draft.start_fetch("Fetching the model list…")
    assert draft.take_answer(third, config, False, (["a", "b"], ""), None)
    assert draft.status == ("2 models found", "ok")
    fourth = draft.start_fetch("Testing…")
    assert draft.take_answer(fourth, config, True, ([], "Desk did not answer."), None)
    assert draft.status == ("Desk did not answer.", "error") and draft.models == ["a", "b"]
    fifth = draft.start_fetch("Testing…")
    assert draft.take_answer(fifth, config, True, None, RuntimeError("bug"))
    assert draft.status == ("Could not list the models of Desk.", "error")


def test_configs_are_every_server_or_the_first_that_cannot_be_saved(qapp) -> None:
    drafts = ServerDrafts(saved("A", "B"))
    configs, invalid = drafts.configs()
    assert [c.name for c in configs] == ["A", "B"] and invalid == -1
    drafts.add("c").name = "a"  # taken: "A" is the first that cannot be saved now
    assert drafts.configs() == ([], 0)
    assert drafts.unread_keys() == ["id-A", "id-B"]
    drafts.remove(1)
    drafts.keys_read({"id-A": "sk-a"})
    removed = drafts.last_removed
    assert removed is not None and removed.key == removed.saved_key == ""
    assert [d.key for d in drafts.all()] == ["sk-a", ""] and drafts.unread_keys() == []
