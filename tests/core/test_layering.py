"""The core must never import Qt (napari-style contract, checked two ways)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_core_does_not_load_qt() -> None:
    modules = sorted(p.stem for p in (ROOT / "app" / "core").glob("*.py") if p.stem != "__init__")
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}: importlib.import_module('app.core.' + m)\n"
        "bad = [m for m in sys.modules if m.startswith('PyQt6')]\n"
        "print(','.join(bad)); sys.exit(1 if bad else 0)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, f"app.core imported Qt: {proc.stdout} {proc.stderr}"


def test_import_linter_contract_holds() -> None:
    exe = Path(sys.executable).with_name("lint-imports")
    if not exe.exists():
        import pytest

        pytest.skip("import-linter is not installed")
    proc = subprocess.run([str(exe)], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
