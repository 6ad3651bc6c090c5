"""Attachments of the message being written, read off the GUI thread, and
what each question's prompt gets from a conversation's attachments.

``AttachmentService.add_files(paths)`` gives each file a chip at once
(``attachment_added``: its name, "reading…"), then reads it on a background
call: the core's ``extract`` and chunking in a child process (QtPdf for PDFs;
``reading_process``), an
image scaled by ``images.read_image``. ``attachment_read`` follows with the
result (or its error); ``remove`` cancels a read still running.

On send, ``prepare`` gives the pending attachments to the user message:
their mode is decided (whole if they fit the context left after the
conversation, else retrieved), they are saved with their blobs and chunks,
and the store plans the prompt (``Store.plan_question``: whole texts and the
retrieved chunks). The plan comes back to the GUI thread (``callback``); the
controller starts the reply with it. Everything runs on the store thread
(``StoreService``, jobs in order: the save lands before the plan reads it);
with no history (``persist=False``: the doctor) a private in-memory store is
used, one background call at a time.

Signals:

* ``attachment_added(object)``: a file is being read; arg: Attachment.
* ``attachment_read(object)``: a file was read (``error`` set if it could not be); arg: Attachment.
* ``attachment_removed(str)``: an attachment left the message being written; arg: its id.
* ``progress_changed(str, float)``: how far the reading of one is; args: id, 0..1.
* ``pending_changed()``: the set of pending attachments changed (added, read, removed, sent).
* ``sources_loaded(str)``: the sources of a conversation's replies were read from the store; arg: its id.
* ``files_loaded(str)``: a conversation's attachments are known (read from the store, or sent); arg: its id.

The embedding model (``embedder``: None, keywords only) is chosen through
``embedding`` (``app.ui.attachments.embedding``).

Threading rule: GUI thread; the work runs on background calls and the store thread.
"""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QObject, pyqtSignal

from app.core.attachments.context import Source
from app.core.attachments.plan import Budget, PromptPlan, conversation_tokens, decide_new_modes
from app.core.attachments.record import Attachment, AttachmentError, AttachmentKind
from app.core.backends.base import BackendError
from app.core.backends.llama.embedder import LlamaEmbedder
from app.core.base import limits
from app.core.store import Store, StoreError
from app.core.store.attachments import AttachmentContent
from app.ui.attachments.embedding import EmbeddingChoice
from app.ui.attachments.images import IMAGE_TOKENS, read_image
from app.ui.attachments.reading_process import read_out_of_process
from app.ui.services.background import BackgroundCalls
from app.ui.services.store import StoreService

log = logging.getLogger(__name__)

PlanCallback = Callable[[PromptPlan], None]


def read_attachment(
    path: str, cancel: threading.Event, progress: Callable[[float], None] | None = None,
    embedder: LlamaEmbedder | None = None,
) -> AttachmentContent:
    """Read one file completely (a worker thread): text and chunks (with their
    vectors when an embedding model is set), or a scaled image."""
    att, extracted, chunks = read_out_of_process(path, cancel, progress)  # its GIL is not the window's
    if not att.ok:
        return AttachmentContent(att)
    if att.kind is AttachmentKind.IMAGE:
        try:
            image = read_image(path)
        except AttachmentError as e:
            return AttachmentContent(att.failed(str(e)))
        return AttachmentContent(replace(att, tokens=IMAGE_TOKENS, pages=1), image=image.data, mime=image.mime)
    assert extracted is not None
    if embedder is None or not chunks:
        return AttachmentContent(att, extracted, chunks)
    try:
        vectors = embedder.embed([c.text for c in chunks], cancel)
    except BackendError as e:
        log.warning("embedding %s failed: %s", att.name, e)
        return AttachmentContent(replace(att, notice=str(e)), extracted, chunks)
    return AttachmentContent(att, extracted, chunks, vectors=tuple(tuple(v) for v in vectors),
                             vector_model=embedder.model)


class AttachmentService(QObject):
    """See the module docstring."""

    attachment_added = pyqtSignal(object)
    attachment_read = pyqtSignal(object)
    attachment_removed = pyqtSignal(str)
    progress_changed = pyqtSignal(str, float)
    pending_changed = pyqtSignal()
    sources_loaded = pyqtSignal(str)
    files_loaded = pyqtSignal(str)

    def __init__(self, store: StoreService | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = store if store is not None and store.enabled else None
        self._calls = BackgroundCalls(self)
        #: The message being written's attachments, in order: id -> read content (None: still reading).
        self._pending: dict[str, tuple[Attachment, AttachmentContent | None]] = {}
        self._cancels: dict[str, threading.Event] = {}
        self._local: Store | None = None
        self._local_lock = threading.Lock()
        #: An embedding model (None: keyword retrieval only): chunks get vectors
        #: when read, each question when planned, and the rankings are fused.
        self.embedder: LlamaEmbedder | None = None
        #: Chooses ``embedder`` (Settings › Documents), off the GUI thread.
        self.embedding = EmbeddingChoice(self, self)
        #: The plan of the last question (the doctor reports it).
        self.last_plan: PromptPlan | None = None
        #: reply id -> the chunks it was given (shown under it).
        self.sources: dict[str, tuple[Source, ...]] = {}
        #: conversation id -> its attachments (as stored: shown above the box).
        self.files: dict[str, tuple[Attachment, ...]] = {}
        self._with_attachments: set[str] = set()
        self._looked_up: set[str] = set()
        self.destroyed.connect(self._close_local)

    # -- the message being written -------------------------------------------------------

    def add_files(self, paths: Sequence[str], temporary: bool = False) -> list[Attachment]:
        """Start reading ``paths``; each gets its chip at once. Files beyond
        ``MAX_ATTACHMENTS_PER_MESSAGE`` get a chip with the error.
        ``temporary``: the files are Rill's own (a pasted image written out),
        deleted once read, removed or refused: what was read stays in memory."""
        added = []
        for path in paths:
            att = Attachment(Path(path).name, AttachmentKind.UNKNOWN, 0, path=path)
            if len(self._pending) >= limits.MAX_ATTACHMENTS_PER_MESSAGE:
                att = att.failed(self.tr("At most {n} files can be attached to one message.")
                                 .format(n=limits.MAX_ATTACHMENTS_PER_MESSAGE))
                self._pending[att.id] = (att, AttachmentContent(att))
                if temporary:
                    self._calls.run(functools.partial(_delete_later, path), _ignore, name="rill-attach-clean")
                self.attachment_added.emit(att)
                self.attachment_read.emit(att)
                continue
            self._pending[att.id] = (att, None)
            self.attachment_added.emit(att)
            self._start_read(att, temporary)
            added.append(att)
        self.pending_changed.emit()
        return added

    def _start_read(self, att: Attachment, temporary: bool = False) -> None:
        aid = att.id
        relay = _Progress(self, aid)

        embedder = self.embedder

        def work(cancel: threading.Event) -> AttachmentContent:
            try:
                content = read_attachment(att.path, cancel, relay.report, embedder)
            finally:
                if temporary:
                    _delete(att.path)
            return replace(content, attachment=replace(content.attachment, id=aid))

        def done(content: Any, error: BaseException | None) -> None:
            self._cancels.pop(aid, None)
            if aid not in self._pending:
                return  # removed meanwhile
            if error is not None or not isinstance(content, AttachmentContent):
                log.error("reading %s failed: %r", att.name, error)
                failed = att.failed(self.tr("This file could not be read."))
                content = AttachmentContent(failed)
            self._pending[aid] = (content.attachment, content)
            self.attachment_read.emit(content.attachment)
            self.pending_changed.emit()

        self._cancels[aid] = self._calls.run(work, done, name="rill-attach")

    def remove(self, attachment_id: str) -> None:
        """Take an attachment off the message being written (a read still running is cancelled)."""
        if self._pending.pop(attachment_id, None) is None:
            return
        cancel = self._cancels.pop(attachment_id, None)
        if cancel is not None:
            cancel.set()
        self.attachment_removed.emit(attachment_id)
        self.pending_changed.emit()

    def clear(self) -> None:
        for aid in list(self._pending):
            self.remove(aid)

    @property
    def pending(self) -> list[Attachment]:
        """The message being written's attachments, in order (as read so far)."""
        return [att for att, _ in self._pending.values()]

    @property
    def reading(self) -> bool:
        """Some attachment is still being read."""
        return any(content is None for _, content in self._pending.values())

    def content(self, attachment_id: str) -> AttachmentContent | None:
        entry = self._pending.get(attachment_id)
        return entry[1] if entry is not None else None

    def planned(self, n_ctx: int, reply_tokens: int, history: Sequence[str]) -> list[Attachment]:
        """The pending attachments with the mode they would get if sent now
        (the chips show it). ``history``: the texts of the conversation's path."""
        budget = Budget(n_ctx, reply_tokens, conversation_tokens(history))
        return decide_new_modes(self.pending, budget)

    # -- sending ---------------------------------------------------------------------

    def take(self) -> list[AttachmentContent]:
        """The pending attachments' contents, which leave the message being
        written (the chips go); call when no read is running."""
        items = [c for _, c in self._pending.values() if c is not None]
        for aid in list(self._pending):
            self._pending.pop(aid)
            self.attachment_removed.emit(aid)
        self.pending_changed.emit()
        return items

    def has_attachments(self, conversation_id: str) -> bool:
        """``conversation_id`` has stored attachments (known since they were
        sent, or since ``look_up`` found them when it was shown)."""
        return conversation_id in self._with_attachments

    def look_up(self, conversation_id: str) -> None:
        """Find out (on the store thread) whether a conversation just shown has
        attachments, and load its replies' sources (``sources_loaded``)."""
        if self._store is None or conversation_id in self._looked_up:
            return
        self._looked_up.add(conversation_id)

        def fetch(store: Store | None) -> tuple[list[Attachment], dict[str, list[Source]]]:
            if store is None:
                return [], {}
            return [a for _, a in store.load_attachments(conversation_id)], store.load_sources(conversation_id)

        def done(result: Any) -> None:
            if not isinstance(result, tuple):
                return
            attachments, sources = result
            if attachments:
                self._with_attachments.add(conversation_id)
                self.files[conversation_id] = tuple(attachments)
                self.files_loaded.emit(conversation_id)
            for reply_id, items in sources.items():
                self.sources[reply_id] = tuple(items)
            if sources:
                self.sources_loaded.emit(conversation_id)

        self._store.read(fetch, done)

    def prepare(
        self,
        conversation_id: str,
        question_id: str,
        path: Sequence[tuple[str, str]],
        items: Sequence[AttachmentContent],
        n_ctx: int,
        reply_tokens: int,
        callback: PlanCallback,
    ) -> None:
        """Save ``items`` as the attachments of the user message
        ``question_id`` (their modes decided for what the context has left)
        and plan that question's prompt; ``callback(plan)`` follows on the GUI
        thread. ``path``: (id, text) of the conversation's path up to the question."""
        path = list(path)
        items = list(items)
        question = path[-1][1] if path else ""
        embedder = self.embedder
        if items:
            self._with_attachments.add(conversation_id)

        def run(store: Store) -> PromptPlan:
            budget = Budget(n_ctx, reply_tokens, conversation_tokens([text for _, text in path]))
            if items:
                decided = decide_new_modes([i.attachment for i in items], budget)
                try:
                    store.save_attachments(conversation_id, question_id,
                                           [replace(i, attachment=a) for i, a in zip(items, decided, strict=True)])
                except StoreError:
                    # not saved (the store says why, and retries): this question still gets them
                    if store is not self._local:
                        return self._run_local(run)
                    raise
            vector: list[float] | None = None
            if embedder is not None and question.strip():
                try:
                    vector = embedder.embed([question])[0]
                    _embed_earlier_chunks(store, conversation_id, embedder)
                except (BackendError, StoreError) as e:
                    log.warning("embedding the question failed: %s", e)
            return store.plan_question(conversation_id, path, question_id, question, budget, vector,
                                       embedder.model if embedder is not None else "")

        def delivered(result: Any) -> None:
            plan = result if isinstance(result, PromptPlan) else PromptPlan()
            self.last_plan = plan
            if plan.attachments:
                known = {a.id: a for a in self.files.get(conversation_id, ())}
                known.update((a.id, a) for a in plan.attachments)
                self.files[conversation_id] = tuple(known.values())
                self.files_loaded.emit(conversation_id)
            callback(plan)

        if self._store is not None:
            def on_store(store: Store | None) -> PromptPlan:
                # one job: its save lands before its plan reads (a failed save leaves them whole in memory)
                if store is None:
                    return self._run_local(run)
                return run(store)

            self._store.read(on_store, delivered)
            return

        def done(result: Any, error: BaseException | None) -> None:
            if error is not None:
                log.error("planning the prompt failed: %r", error)
            delivered(result)

        self._calls.run(lambda _cancel: self._run_local(run), done, name="rill-attach-plan")

    def keep_sources(self, conversation_id: str, reply_id: str, sources: Sequence[Source]) -> None:
        """Remember (and store) the chunks reply ``reply_id`` was given."""
        self.sources[reply_id] = tuple(sources)
        if self._store is not None and sources:
            items = list(sources)
            self._store.write(lambda store: store.save_sources(conversation_id, reply_id, items),
                              conversation_id=conversation_id)

    def _run_local(self, run: Callable[[Store], PromptPlan]) -> PromptPlan:
        """``run`` on the private in-memory store (no history: the doctor), one at a time."""
        with self._local_lock:
            if self._local is None:
                self._local = Store.in_memory()
            return run(self._local)

    def _close_local(self) -> None:
        if self.embedder is not None:
            self.embedder.close()
        with self._local_lock:
            if self._local is not None:
                self._local.close()
                self._local = None


def _delete(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        log.warning("the temporary file %s could not be deleted: %s", path, e)


def _delete_later(path: str, _cancel: threading.Event) -> None:
    _delete(path)


def _ignore(_result: Any, _error: BaseException | None) -> None:
    pass


def _embed_earlier_chunks(store: Store, conversation_id: str, embedder: LlamaEmbedder) -> None:
    """Vectors for some chunks of the conversation read before ``embedder``
    was chosen (at most ``MAX_LAZY_EMBEDDED_CHUNKS`` a question: the store
    thread's job stays short; the rest follow with the next questions)."""
    missing = store.unembedded_chunks(conversation_id, embedder.model, limits.MAX_LAZY_EMBEDDED_CHUNKS)
    if missing:
        vectors = embedder.embed([text for _, text in missing])
        store.save_chunk_vectors(embedder.model, [(key, v) for (key, _), v in zip(missing, vectors, strict=False)])


class _Progress:
    """Reading progress from a worker, passed on in steps of 5 %."""

    def __init__(self, service: AttachmentService, attachment_id: str) -> None:
        self._service = service
        self._id = attachment_id
        self._last = -1.0

    def report(self, fraction: float) -> None:
        if fraction - self._last < 0.05 and fraction < 1.0:
            return
        self._last = fraction
        try:  # emitted on the worker, queued to the GUI thread's slots
            self._service.progress_changed.emit(self._id, fraction)
        except RuntimeError:  # the service is gone
            pass
