"""The ``hub`` scene of scripts/screenshots.py: Model › Get More Models…
against a fake Hub on 127.0.0.1 (tests/helpers/fake_hub.py; nothing is
fetched from the internet), with a search, a repository's files (their
header read by a range request) and a download in progress (hub.png)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from PyQt6.QtCore import QTimer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.helpers.fake_hub import FakeHub, FakeRepo, Fault  # noqa: E402 - after the path
from tests.helpers.gguf_files import tiny_model  # noqa: E402 - after the path

MB = 1024 * 1024
QWEN = "Qwen/Qwen2.5-1.5B-Instruct-GGUF"
QWEN_SIZES = {"q2_k": 676, "q3_k_m": 824, "q4_0": 935, "q4_k_m": 986, "q5_k_m": 1125, "q6_k": 1272, "q8_0": 1646,
              "fp16": 3094}
CHATML = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + "
          "'<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}")


def fill_hub(hub: FakeHub, folder: Path) -> None:
    header = tiny_model(folder / "h.gguf", arch="qwen2", vocab=20000, data_bytes=64 * 1024, template=CHATML,
                        context_length=32768).read_bytes()
    files, listed = {}, {}
    for quant, size_mb in QWEN_SIZES.items():
        name = f"qwen2.5-1.5b-instruct-{quant}.gguf"
        files[name] = header
        listed[name] = size_mb * MB
    hub.repos[QWEN] = FakeRepo(files, downloads=412_904, likes=131, last_modified="2024-09-20T11:09:54.000Z",
                               listed_sizes=listed)
    # One file is really this large, so that its download can be shown going.
    small = "smollm2-360m-instruct-q8_0.gguf"
    hub.repos["HuggingFaceTB/SmolLM2-360M-Instruct-GGUF"] = FakeRepo(
        {small: header + bytes(60 * MB)}, downloads=58_112, likes=47, last_modified="2024-11-01T08:00:00.000Z")
    for repo, downloads, likes in (("Qwen/Qwen2.5-0.5B-Instruct-GGUF", 301_877, 118),
                                   ("bartowski/Qwen2.5-7B-Instruct-GGUF", 209_503, 96),
                                   ("Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", 88_410, 52),
                                   ("unsloth/Qwen2.5-3B-Instruct-GGUF", 23_954, 11)):
        hub.repos[repo] = FakeRepo({"model-Q4_K_M.gguf": header}, downloads=downloads, likes=likes,
                                   last_modified="2024-10-15T10:00:00.000Z")


def hub_scene(out_dir: str, window, app, save_shot) -> int:  # type: ignore[no-untyped-def]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cdn = FakeHub().__enter__()
    hub = FakeHub(cdn=cdn).__enter__()
    fill_hub(hub, Path(tempfile.mkdtemp()))
    os.environ["HF_ENDPOINT"] = hub.url
    # The header read and the download of SmolLM2 trickle: the download is shown going.
    cdn.faults += [Fault("trickle", n=256 * 1024, delay=0.01, path="smollm2"),
                   Fault("trickle", n=64 * 1024, delay=0.02, path="smollm2")]

    def open_dialog(_info: object = None) -> None:
        window.model_menu.hub_action.trigger()
        dialog = window.model_dialogs.hub_dialog
        dialog.resize(1100, 720)
        dialog.search_edit.setText("qwen2.5")
        QTimer.singleShot(600, lambda: start_download(dialog))

    def start_download(dialog) -> None:  # type: ignore[no-untyped-def]
        for entry in dialog._recommended:
            if entry.name.startswith("SmolLM2 360M"):
                dialog.select_recommended(entry, download=True)  # as the demo model's Get It does
        QTimer.singleShot(1500, lambda: search(dialog))

    def search(dialog) -> None:  # type: ignore[no-untyped-def]
        dialog.search_button.click()
        QTimer.singleShot(800, lambda: pick(dialog))

    def pick(dialog) -> None:  # type: ignore[no-untyped-def]
        root = dialog.results_root
        for i in range(root.childCount()):
            if root.child(i).text(0) == QWEN:
                dialog.repos.setCurrentItem(root.child(i))
        QTimer.singleShot(800, lambda: (dialog.files.selectRow(3), QTimer.singleShot(1500, lambda: finish(dialog))))

    def finish(dialog) -> None:  # type: ignore[no-untyped-def]
        save_shot(dialog, out / "hub.png")
        dialog.close()
        window.close()

    window.chat.model_ready.connect(open_dialog)
    QTimer.singleShot(60000, app.quit)
    code = app.exec()
    hub.__exit__()
    cdn.__exit__()
    return int(code)
