"""The chat facade over its parts: an injected inference service, the state
derived from the model session and the consumer, and a delete's undo record."""

from __future__ import annotations

from app.core.backends.scripted import ScriptedBackend
from app.core.conversation.deletion import MessageDeletion
from app.ui.conversation.controller import ChatController, ChatState
from app.ui.services.inference import InferenceService


def test_an_injected_service_is_used_and_the_state_follows_its_parts(qtbot, view) -> None:
    service = InferenceService()
    chat = ChatController(view, service=service)
    try:
        assert chat.service is service and chat.session.service is service
        states: list[ChatState] = []
        chat.state_changed.connect(states.append)
        assert chat.state == ChatState.NO_MODEL
        with qtbot.waitSignal(chat.model_ready, timeout=10000):
            chat.load_model(lambda: ScriptedBackend(rate=2000, n_tokens=12), "scripted")
        assert states == [ChatState.LOADING, ChatState.IDLE]
        with qtbot.waitSignal(chat.reply_settled, timeout=10000):
            assert chat.send("hello")
            assert chat.state == ChatState.GENERATING and chat.current_reply is not None
        assert states[-2:] == [ChatState.GENERATING, ChatState.IDLE] and chat.current_reply is None
        reply = chat.conversation.messages[-1]
        deleted: list[tuple[str, object]] = []
        chat.message_deleted.connect(lambda what, record: deleted.append((what, record)))
        assert chat.delete_message(reply.id)
        [(what, record)] = deleted
        assert what == "Message deleted" and isinstance(record, MessageDeletion) and record.removed == (reply,)
        assert reply.id not in view.message_ids()
        chat.undo_delete(record)
        chat.undo_delete(record)  # once only
        assert view.message_ids() == [m.id for m in chat.conversation.messages]
        assert chat.conversation.messages[-1] is reply
    finally:
        assert chat.shutdown()
