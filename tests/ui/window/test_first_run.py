"""FirstRunPanel names the real models folder and the install command."""

from __future__ import annotations

from typing import Any

from app.core.base import settings
from app.core.models import paths as models
from app.ui.window.first_run import FirstRunPanel


def test_the_panel_names_the_folder_and_command(qtbot: Any, monkeypatch: Any) -> None:
    panel = FirstRunPanel()
    qtbot.addWidget(panel)
    assert str(settings.user_models_dir()) in panel.body.text()
    monkeypatch.setattr(models, "install_default_model_command", lambda: "pip install <thing>")
    panel.refresh()
    assert "pip install &lt;thing&gt;" in panel.body.text(), "escaped in rich text"
    assert panel.open_button.objectName() == "firstRunOpen"
