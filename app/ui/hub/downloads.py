"""The downloads panel of Get More Models…: one row per download, with its
progress (bytes, speed, time left), Pause / Resume / Cancel, and Load once
it is done (``DownloadsPanel``).

It shows ``app.ui.services.hub.HubService``'s jobs and follows its
``job_changed``; the buttons call the service. GUI thread only.
"""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication, pyqtSignal
from PyQt6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from app.core.hub.queue import CANCELLED, DONE, DOWNLOADING, FAILED, PAUSED, QUEUED, Job
from app.core.models.sizes import format_bytes
from app.ui.services.hub import HubService

#: Qt's translate, by the name lupdate looks for.
translate = QCoreApplication.translate



def time_left(seconds: float | None) -> str:
    """"45 s", "3 min", "1 h 05 min" ("" when unknown)."""
    if seconds is None or seconds < 0:
        return ""
    s = int(seconds + 0.5)
    if s < 60:
        return translate("HubDownloads", "{n} s").format(n=s)
    if s < 3600:
        return translate("HubDownloads", "{n} min").format(n=(s + 30) // 60)
    return translate("HubDownloads", "{h} h {m:02d} min").format(h=s // 3600, m=(s % 3600) // 60)


def job_status(job: Job) -> str:
    """The row's status line for ``job``."""
    p = job.progress
    total = job.request.size or (p.total if p else 0)
    done = p.done if p else job.done_bytes
    amount = (translate("HubDownloads", "{done} of {total}").format(done=format_bytes(done), total=format_bytes(total))
              if total else "")
    if job.state == DOWNLOADING:
        if p is not None and p.phase == "checking":
            return translate("HubDownloads", "Checking the part already downloaded… {amount}").format(amount=amount)
        if p is not None and p.phase == "verifying":
            return translate("HubDownloads", "Verifying the checksum…")
        parts = [amount]
        if p is not None and p.speed > 0:
            parts.append(translate("HubDownloads", "{speed}/s").format(speed=format_bytes(int(p.speed))))
            left = time_left(p.eta)
            if left:
                parts.append(translate("HubDownloads", "{time} left").format(time=left))
        return " · ".join(x for x in parts if x) or translate("HubDownloads", "Starting…")
    if job.state == QUEUED:
        return translate("HubDownloads", "Waiting for the download before it") + (f" · {amount}" if done else "")
    if job.state == PAUSED:
        if not done:
            return translate("HubDownloads", "Paused")
        return translate("HubDownloads", "Paused at {amount}").format(amount=amount)
    if job.state == DONE:
        return translate("HubDownloads", "Downloaded and verified: {path}").format(path=job.path)
    if job.state == FAILED:
        return job.error
    return translate("HubDownloads", "Cancelled; the partial file was deleted.")


class _JobRow(QWidget):
    def __init__(self, panel: DownloadsPanel, job: Job) -> None:
        super().__init__(panel)
        self._panel = panel
        self.job_id = job.id
        self.name = QLabel(job.request.name)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.pause_button = QPushButton(translate("HubDownloads", "Pause"))
        self.resume_button = QPushButton(translate("HubDownloads", "Resume"))
        self.cancel_button = QPushButton(translate("HubDownloads", "Cancel"))
        self.load_button = QPushButton(translate("HubDownloads", "Load"))
        self.load_button.setToolTip(translate("HubDownloads", "Chat with this model now"))
        top = QHBoxLayout()
        top.addWidget(self.name, 1)
        for b in (self.pause_button, self.resume_button, self.cancel_button, self.load_button):
            top.addWidget(b)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addLayout(top)
        layout.addWidget(self.bar)
        layout.addWidget(self.status)
        self.pause_button.clicked.connect(lambda: panel.service.pause(self.job_id))
        self.resume_button.clicked.connect(lambda: panel.service.resume(self.job_id))
        self.cancel_button.clicked.connect(lambda: panel.service.cancel(self.job_id))
        self.load_button.clicked.connect(self._on_load_clicked)
        self.path = ""
        self.show_job(job)

    def _on_load_clicked(self) -> None:
        if self.path:
            self._panel.load_requested.emit(self.path)

    def show_job(self, job: Job) -> None:
        self.path = job.path
        total = job.request.size or (job.progress.total if job.progress else 0)
        done = job.progress.done if job.progress else job.done_bytes
        self.bar.setValue(1000 if job.state == DONE else int(done * 1000 / total) if total else 0)
        self.bar.setVisible(job.state not in (CANCELLED,))
        self.status.setText(job_status(job))
        self.pause_button.setVisible(job.state in (QUEUED, DOWNLOADING))
        self.resume_button.setVisible(job.state in (PAUSED, FAILED))
        self.cancel_button.setVisible(job.state in (QUEUED, DOWNLOADING, PAUSED, FAILED))
        self.load_button.setVisible(job.state == DONE)
        self.setAccessibleName(f"{job.request.name}: {self.status.text()}")


class DownloadsPanel(QWidget):
    """The downloads of ``service``, newest last.

    Signals:

    * ``load_requested``: Load was clicked on a finished download; arg: the model file's path.
    """

    #: Load was clicked on a finished download; arg: its path (str).
    load_requested = pyqtSignal(str)

    def __init__(self, service: HubService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.rows: dict[int, _JobRow] = {}
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.empty = QLabel(translate("HubDownloads", "No downloads yet. Choose a model above and press Download."))
        self._layout.addWidget(self.empty)
        self._connect_signals()
        for job in service.jobs():
            self._on_job_changed(job)

    def _connect_signals(self) -> None:
        self.service.job_changed.connect(self._on_job_changed)

    def _on_job_changed(self, job: Job) -> None:
        row = self.rows.get(job.id)
        if row is None:
            row = _JobRow(self, job)
            self.rows[job.id] = row
            self._layout.addWidget(row)
            self.empty.hide()
        else:
            row.show_job(job)
