"""Delete the application's Qt objects before PyQt's own exit clean-up can crash.

At interpreter exit PyQt6 runs ``cleanup_on_exit`` (an ``atexit`` handler):
while it walks sip's table of every live wrapper it deletes each parentless
QObject Python owns. Deleting Rill's main window or its services runs Python
(``destroyed`` slots, overridden event handlers, freed objects' ``__del__``)
that makes new wrappers; when that grows sip's table, the walk reads the
freed one and the process dies with SIGSEGV after a clean quit (seen in
CI, about one exit in ten under load; gdb: ``cleanup_qobject`` in
``sip_api_visit_wrappers``).

``install_ordered_teardown()`` registers an ``atexit`` handler after PyQt's,
so it runs first (``atexit`` is last in, first out): ``release_qt_objects``
deletes the same objects in a plain Python loop (top-level widgets first,
then the rest), where new wrappers are harmless, and collects the garbage.
PyQt's walk then finds nothing left to delete.

Threading rule: the GUI thread (the handler runs on the main thread at exit).
"""

from __future__ import annotations

import atexit
import gc

from PyQt6 import sip
from PyQt6.QtCore import QCoreApplication, QObject, QThread
from PyQt6.QtWidgets import QWidget

_installed = False


def install_ordered_teardown() -> None:
    """Run ``release_qt_objects`` at exit, before PyQt's clean-up; once per process.
    Call after ``PyQt6.QtCore`` is imported (it registers its handler then)."""
    global _installed
    if not _installed:
        _installed = True
        atexit.register(release_qt_objects)


def _deletable(obj: QObject, here: QThread | None) -> bool:
    """What PyQt's exit walk would delete: alive, owned by Python, no parent,
    living on this thread; never the application or a running thread."""
    if sip.isdeleted(obj) or not sip.ispyowned(obj) or obj.parent() is not None:
        return False
    if isinstance(obj, QCoreApplication) or (isinstance(obj, QThread) and obj.isRunning()):
        return False
    return obj.thread() is here  # one wrapper per C++ object while ``here`` keeps it alive


def release_qt_objects() -> int:
    """Delete every parentless, Python-owned QObject of this thread (widgets
    first) and collect the garbage; returns how many were deleted."""
    gc.unfreeze()  # the collector's permanent generation (app.ui.services.collector) is not listed otherwise
    here = QThread.currentThread()
    found = [obj for obj in gc.get_objects() if isinstance(obj, QObject)]
    found.sort(key=lambda obj: not isinstance(obj, QWidget))  # windows before the services they use
    deleted = 0
    for obj in found:
        if _deletable(obj, here):  # an earlier deletion may have taken this one with it
            try:
                sip.delete(obj)
            except RuntimeError:  # deleted meanwhile by another's destructor: nothing to do
                continue
            deleted += 1
    del found
    gc.collect()
    return deleted
