from hypothesis import given
from hypothesis import strategies as st

from app.core.backends.scripted import SAMPLE_MARKDOWN, ScriptedBackend, tokenize_text
from app.core.conversation.model import Conversation, MessageStatus
from app.core.pipeline.metrics import percentile, summarize_ms


def test_prompt_has_system_turns_and_keeps_stopped_replies() -> None:
    conv = Conversation(system_prompt="be brief")
    conv.add_user("hi")
    reply = conv.start_reply()
    reply.content = "hel"
    reply.status = MessageStatus.STOPPED
    conv.add_user("again")
    failed = conv.start_reply()
    failed.status = MessageStatus.ERROR
    conv.add_user("third")
    prompt = conv.prompt()
    assert [(m.role, m.content) for m in prompt] == [
        ("system", "be brief"),
        ("user", "hi"),
        ("assistant", "hel"),
        ("user", "again"),
        ("user", "third"),
    ]


def test_streaming_reply_is_not_part_of_its_own_prompt() -> None:
    conv = Conversation()
    conv.add_user("q")
    conv.start_reply()
    assert conv.prompt()[-1].role == "user"


def test_tokenize_text_round_trips_the_sample() -> None:
    tokens = tokenize_text(SAMPLE_MARKDOWN)
    assert b"".join(tokens).decode() == SAMPLE_MARKDOWN
    assert 100 < len(tokens) < len(SAMPLE_MARKDOWN) / 2


def test_scripted_backend_streams_the_whole_script() -> None:
    import threading

    from app.core.backends.base import GenerationRequest

    backend = ScriptedBackend.from_text("hello 你好 world", rate=0)
    gen = backend.generate(GenerationRequest(1, ()), threading.Event())
    pieces = []
    try:
        while True:
            pieces.append(next(gen))
    except StopIteration as stop:
        assert stop.value.value == "stop"
    assert "".join(pieces) == "hello 你好 world"


def test_percentiles() -> None:
    assert percentile([], 50) == 0.0
    assert percentile([1, 2, 3, 4], 50) == 2
    assert percentile(list(range(1, 101)), 99) == 99
    assert summarize_ms([0.001, 0.002]) == {"p50": 1.0, "p99": 2.0, "max": 2.0}


def test_message_appends_lazily() -> None:
    from app.core.conversation.model import Message

    msg = Message("assistant")
    for piece in ["a", "b", "c"]:
        msg.append(piece)
    assert msg.content == "abc"
    msg.append("d")
    assert msg.content == "abcd"
    msg.content = ""
    assert msg.content == ""


def test_reservoir_is_bounded_and_spread_over_the_whole_stream() -> None:
    from app.core.pipeline.metrics import Reservoir

    r = Reservoir(size=1000)
    r.extend([float(i) for i in range(100000)])
    assert 1000 <= len(r.values) < 2000 and r.count == 100000
    # every stride-th value: evenly spread, from the start to the end
    steps = {b - a for a, b in zip(r.values, r.values[1:], strict=False)}
    assert len(steps) == 1 and r.values[0] == 0.0 and r.values[-1] > 100000 - 2 * steps.pop()
    # A sample spread over 0..99999 has its median near 50000.
    assert 45000 < percentile(r.values, 50) < 55000


@given(st.lists(st.integers(min_value=0, max_value=60), max_size=40), st.integers(min_value=1, max_value=50))
def test_reservoir_keeps_the_same_values_however_the_stream_is_batched(batches: list[int], size: int) -> None:
    from app.core.pipeline.metrics import Reservoir

    n = sum(batches)
    whole = Reservoir(size=size)
    whole.extend([100_000.0 - i for i in range(n)])
    one = Reservoir(size=size)
    for i in range(n):
        one.add(100_000.0 - i)
    r = Reservoir(size=size)
    done = 0
    for b in batches:
        r.add_offsets(100_000.0, [float(done + i) for i in range(b)])  # the tick's way: origin - produced_at
        done += b
    assert r.count == whole.count == one.count == n
    assert r.values == whole.values == one.values
    assert len(r.values) == n if n < 2 * size else size <= len(r.values) < 2 * size


def test_messages_have_stable_unique_ids_and_round_trip() -> None:
    from app.core.conversation.model import Conversation, Message, MessageMeta, MessageStatus

    conv = Conversation()
    user = conv.add_user("Hello 你好 😀")
    reply = conv.start_reply()
    reply.append("Hi ")
    reply.append("there")
    reply.status = MessageStatus.STOPPED
    reply.meta = MessageMeta(model="m", finish_reason="cancelled", tokens=2, tokens_per_s=10.5, ttft_ms=12.0)
    assert user.id != reply.id and len(user.id) == 32
    assert conv.get(reply.id) is reply
    again = Conversation()
    again.load([m.snapshot() for m in conv.all_messages()], conv.current_leaf)
    assert [m.id for m in again.messages] == [user.id, reply.id]
    assert again.get(reply.id).content == "Hi there"
    assert again.get(reply.id).status == MessageStatus.STOPPED
    assert conv.title == "Hello 你好 😀"
    copy = reply.snapshot()
    assert copy is not reply and copy.meta is not reply.meta and copy.meta == reply.meta
    reply.append("!")
    assert copy.content == "Hi there" and isinstance(copy, Message)


def test_the_path_shown_when_the_leaf_is_unknown_is_the_newest_leaf_everywhere() -> None:
    from app.core.conversation.model import Conversation, Message, current_path

    q = Message("user", "q", created_at=1.0)
    a_new = Message("assistant", "newer answer", created_at=5.0, parent_id=q.id)
    q2 = Message("user", "second root, older", created_at=2.0)
    a_old = Message("assistant", "older answer", created_at=3.0, parent_id=q.id)
    messages = [q, a_new, q2, a_old]
    conv = Conversation()
    conv.load(messages, None)
    # the newest leaf, not the last root (q2) nor the last-listed child (a_old)
    assert [m.id for m in conv.messages] == [q.id, a_new.id]
    assert [m.id for m in current_path(messages, "unknown")] == [q.id, a_new.id]


def test_rendered_cache_follows_the_content() -> None:
    from app.core.conversation.model import Message

    msg = Message("assistant", "text")
    msg.rendered = ("units",)
    assert msg.rendered == ("units",)
    msg.append(" more")
    assert msg.rendered is None, "a stale render is never shown"


def test_conversation_as_markdown_has_every_turn_and_marks_stopped_replies() -> None:
    from app.core.conversation.model import Conversation, MessageStatus

    conv = Conversation()
    conv.add_user("Question?")
    r = conv.start_reply()
    r.append("Partial **answer**")
    r.status = MessageStatus.STOPPED
    from app.core.store.exchange import conversation_markdown

    md = conversation_markdown(conv, conv.all_messages())  # Edit › Copy and File › Export alike
    assert "## You\n\nQuestion?" in md
    assert "## Rill (stopped)\n\nPartial **answer**" in md


def test_regenerations_and_edits_are_branches_and_the_path_switches() -> None:
    from app.core.conversation.model import Conversation, MessageStatus

    conv = Conversation()
    q = conv.add_user("question")
    a1 = conv.start_reply()
    a1.append("first answer")
    a1.status = MessageStatus.COMPLETE
    # Regenerate: a sibling of a1, the path follows it.
    a2 = conv.start_reply(parent_id=q.id)
    assert [m.id for m in conv.messages] == [q.id, a2.id]
    assert [m.id for m in conv.siblings(a2.id)] == [a1.id, a2.id]
    # Switch back to the first answer.
    conv.switch_to(a1.id)
    assert [m.id for m in conv.messages] == [q.id, a1.id]
    # Edit & resend the question: a sibling of q, with its own reply.
    q2 = conv.add_user("better question")
    assert q2.parent_id == a1.id  # default: continues the path
    q3 = conv.add_user("edited question", parent_id=q.parent_id)
    assert q3.parent_id is None and [m.id for m in conv.siblings(q3.id)] == [q.id, q3.id]
    assert conv.messages == [q3]
    # Removing a branch and undoing it.
    removed = conv.remove(q3.id)
    assert [m.id for m in removed] == [q3.id] and conv.messages[0].id == q.id
    conv.restore(removed)
    assert conv.messages == [q3]
    # Loading the tree again keeps it and the current leaf.
    again = Conversation()
    again.load(conv.all_messages(), conv.current_leaf)
    assert [m.id for m in again.messages] == [q3.id]
    assert {m.id for m in again.all_messages()} == {q.id, a1.id, a2.id, q2.id, q3.id}


def test_sample_history_is_one_path() -> None:
    from app.core.conversation.model import Conversation
    from app.core.conversation.sample import history_messages, history_of_chars

    for msgs in (history_messages(40), history_of_chars(50_000)):
        conv = Conversation()
        conv.load(msgs)
        assert [m.id for m in conv.messages] == [m.id for m in msgs]


_pieces = st.sampled_from(["<think>", "</think>", "<THINK>", " ", "\n", "\u3000", "x", "<", "answer"])


@given(st.lists(st.tuples(st.sampled_from(["user", "assistant"]), st.lists(_pieces, max_size=6).map("".join),
                          st.sampled_from(list(MessageStatus))), max_size=12))
def test_the_prompt_strips_thoughts_and_skips_what_a_model_must_not_see(turns) -> None:
    from app.core.conversation.model import Message
    from app.core.text.thinking import strip_thinking

    messages: list[Message] = []
    for role, text, status in turns:
        messages.append(Message(role, text, status=status, parent_id=messages[-1].id if messages else None))
    conv = Conversation(messages=messages)
    assert len(conv.messages) == len(turns)
    want = [("system", conv.system_prompt)] if conv.system_prompt else []
    for m in conv.messages:  # the rule, written plainly: every reply stripped, blank ones left out
        if m.status in (MessageStatus.ERROR, MessageStatus.STREAMING):
            continue
        text = strip_thinking(m.content) if m.role == "assistant" else m.content
        if m.role == "assistant" and not text.strip():
            continue
        want.append((m.role, text))
    assert [(c.role, c.content) for c in conv.prompt()] == want


def test_a_long_prompt_build_hands_the_gil_over_as_it_goes(monkeypatch) -> None:
    """Built on the inference thread while the GUI thread waits for the GIL
    (a 26,554-message conversation: ~30 ms of Python): every ``gil.EVERY``
    messages it lets the GIL go (``time.sleep(0)``), and the prompt is the
    same."""
    from app.core.util import gil

    conv = Conversation(system_prompt="sys")
    for k in range(300):
        conv.add_user(f"q{k}")
        conv.start_reply().append(f"a{k}")
        conv.messages[-1].status = MessageStatus.COMPLETE
    whole = conv.prompt()
    slept: list[float] = []
    monkeypatch.setattr(gil.time, "sleep", slept.append)
    assert conv.prompt() == whole and len(whole) == 601
    assert slept == [0] * (600 // gil.EVERY)
