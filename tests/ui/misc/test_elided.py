"""ElidedLabel: a long text never widens its row; text() stays whole."""

from __future__ import annotations

from PyQt6.QtWidgets import QHBoxLayout, QWidget

from app.ui.misc.elided import ElidedLabel


def test_a_long_name_shortens_instead_of_widening_the_row(qtbot) -> None:
    host = QWidget()
    qtbot.addWidget(host)
    row = QHBoxLayout(host)
    labels = []
    for n in range(3):
        label = ElidedLabel()
        label.setText(f"annual-report-{n}-" + "very-long-name-" * 20 + ".pdf · 1.6 MB · 300 pages")
        row.addWidget(label)
        labels.append(label)
    host.resize(600, 40)
    host.show()
    qtbot.waitExposed(host)
    assert host.minimumSizeHint().width() < 600 and host.width() == 600
    assert all(label.width() < label.sizeHint().width() for label in labels)  # each is shortened
    assert labels[0].text().startswith("annual-report-0-") and labels[0].text().endswith("300 pages")
    short = ElidedLabel()
    short.setText("a.txt")
    assert short.minimumSizeHint().width() <= short.sizeHint().width()
