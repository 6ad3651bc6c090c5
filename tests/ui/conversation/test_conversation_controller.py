"""ConversationController on its own (no ChatController around it): it refuses
to send without a model, sends once one is ready, and a request takes the
settings as they are when it is sent, under the conversation's overrides."""

from __future__ import annotations

import dataclasses

from app.core.backends.base import SamplingParams
from app.core.backends.scripted import ScriptedBackend
from app.ui.conversation.consumer import StreamConsumer
from app.ui.conversation.conversation_controller import ConversationController
from app.ui.services.inference import InferenceService
from app.ui.services.model_session import ModelSession


def test_sends_only_with_a_model_and_replies_in_the_view(qtbot, view) -> None:
    service = InferenceService()
    session = ModelSession(service)
    consumer = StreamConsumer(service)
    convs = ConversationController(view, session, consumer)
    try:
        notices: list[tuple[str, str]] = []
        convs.notice_shown.connect(lambda text, kind: notices.append((text, kind)))
        assert not convs.idle
        assert not convs.send("hello")  # no model yet: nothing changes
        assert convs.conversation.messages == [] and view.message_ids() == []
        with qtbot.waitSignal(session.model_ready, timeout=10000):
            session.load(lambda: ScriptedBackend(rate=2000, n_tokens=6), "scripted")
        assert convs.idle and not convs.send("   ")
        with qtbot.waitSignal(consumer.reply_settled, timeout=10000):
            assert convs.send("  hello  ")
        user, reply = convs.conversation.messages
        assert user.content == "hello" and reply.content
        assert view.message_ids() == [user.id, reply.id]
        convs.notify("a line", "info")
        assert notices[-1] == ("a line", "info")
    finally:
        assert service.shutdown()


def test_reply_settings_put_the_conversation_overrides_over_the_defaults(qtbot, view) -> None:
    service = InferenceService()
    convs = ConversationController(view, ModelSession(service), StreamConsumer(service))
    try:
        conv = convs.conversation
        conv.system_prompt = "its own"
        convs.params = dataclasses.replace(SamplingParams(), temperature=0.3, max_tokens=50)
        assert convs.reply_settings(conv).system_prompt == "its own"  # no default set: the conversation's
        convs.default_system_prompt = "the default"
        conv.overrides = {"temperature": 1.2}
        chosen = convs.reply_settings(conv)
        assert chosen.params.temperature == 1.2 and chosen.params.max_tokens == 50
        assert chosen.system_prompt == "the default"
    finally:
        assert service.shutdown()
