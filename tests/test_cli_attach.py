"""`rill doctor --attach FILE … [--print-prompt]`: per-attachment JSON keys,
the chosen chunks, the prompt's token count, the prompt on stderr; a PDF of
300 pages made by the test with a needle on one page (Latin and Chinese)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.pdfs import filler_page, make_pdf
from tests.test_cli import run_rill

ATTACHMENT_KEYS = {"name", "kind", "pages", "chars", "tokens", "mode", "error", "chunks"}
CHUNK_KEYS = {"file", "page", "score", "text"}


def needle_pdf(tmp_path: Path) -> Path:
    pages = [filler_page(i) for i in range(1, 301)]
    pages[216] = pages[216] + ["The vault code is heliotrope-7731."]
    pages[41] = pages[41] + ["金库的密码是紫罗兰七七三一。"]
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf(pages))
    return path


def test_doctor_attach_retrieves_the_needle_and_prints_the_prompt(tmp_path: Path) -> None:
    pdf = needle_pdf(tmp_path)
    notes = tmp_path / "notes.md"
    notes.write_text("A short note.", encoding="utf-8")
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "5000", "--attach", str(pdf), "--attach", str(notes),
                    "--attach", str(tmp_path / "missing.txt"), "--prompt", "What is the vault code?", "--print-prompt")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["ok"] is True and out["prompt_tokens"] > 0 and out["attach_read_ms"] > 0
    report, note, missing = out["attachments"]
    assert ATTACHMENT_KEYS <= report.keys()
    assert report["name"] == "report.pdf" and report["kind"] == "pdf" and report["pages"] == 300
    assert report["mode"] == "retrieved" and report["error"] == "" and report["tokens"] > 100_000
    best = report["chunks"][0]
    assert CHUNK_KEYS <= best.keys() and best["file"] == "report.pdf" and best["page"] == 217
    assert len(best["text"]) <= 80
    assert note["mode"] == "retrieved" and missing["mode"] == "none" and "no longer there" in missing["error"]
    assert '<excerpt source="report.pdf p. 217">' in proc.stderr and "heliotrope-7731" in proc.stderr
    assert proc.stderr.rstrip().endswith("What is the vault code?") or "<|assistant|>" not in proc.stderr


def test_doctor_attach_chinese_question(tmp_path: Path) -> None:
    pdf = needle_pdf(tmp_path)
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "5000", "--attach", str(pdf),
                    "--prompt", "金库的密码是什么？", "--print-prompt")
    assert proc.returncode == 0, proc.stderr
    [report] = json.loads(proc.stdout)["attachments"]
    assert report["chunks"][0]["page"] == 42
    assert '<excerpt source="report.pdf p. 42">' in proc.stderr and "紫罗兰七七三一" in proc.stderr


def test_doctor_attach_a_short_file_whole(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("The meeting is on Tuesday.", encoding="utf-8")
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "5000", "--attach", str(notes), "--print-prompt")
    out = json.loads(proc.stdout)
    [report] = out["attachments"]
    assert report["mode"] == "whole" and report["chunks"] == [] and report["pages"] == 1
    assert '<attachment name="notes.txt">\nThe meeting is on Tuesday.' in proc.stderr
    # without --attach the key is there, empty
    plain = json.loads(run_rill("doctor", "--backend", "scripted", "--rate", "5000").stdout)
    assert plain["attach_read_ms"] is None
    assert plain["vision"] == {"sees_images": False, "projector": "", "warning": ""}
    assert plain["attachments"] == [] and plain["retrieval"] == "keyword" and "<|user|>" not in run_rill(
        "doctor", "--backend", "scripted", "--rate", "5000").stderr


@pytest.mark.model
def test_doctor_with_an_embedding_model_fuses_vectors(tmp_path: Path) -> None:
    from app.core.models.paths import package_model_path

    model = package_model_path()
    if model is None:
        pytest.skip("the default model is not installed")
    pages = [filler_page(i, lines=8) for i in range(1, 21)]
    pages[12] = pages[12] + ["The vault code is heliotrope-7731."]
    path = tmp_path / "short-report.pdf"
    path.write_bytes(make_pdf(pages))
    big = tmp_path / "filler.txt"
    big.write_text("\n\n".join(" ".join(filler_page(i)) for i in range(8)), encoding="utf-8")
    proc = run_rill("doctor", "--backend", "scripted", "--rate", "5000", "--attach", str(path), "--attach", str(big),
                    "--embedding-model", str(model), "--prompt", "What is the vault code?", timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["retrieval"] == "keyword+vector"
    report = out["attachments"][0]
    assert report["mode"] == "retrieved" and report["chunks"][0]["page"] == 13


@pytest.mark.model
def test_doctor_reports_the_vision_projector_loaded_or_refused(tmp_path: Path) -> None:
    from app.core.models.paths import package_model_path
    from tests.helpers.mmproj import tiny_projector

    model = package_model_path()
    if model is None:
        pytest.skip("the default model is not installed")
    folder = tmp_path / "models"
    folder.mkdir()
    linked = folder / Path(model).name
    linked.symlink_to(model)
    projector = tiny_projector(folder / "mmproj-tiny.gguf")
    out = json.loads(run_rill("doctor", "--model", str(linked), "--max-tokens", "2", timeout=300).stdout)
    assert out["vision"] == {"sees_images": True, "projector": "mmproj-tiny.gguf", "warning": ""}
    tiny_projector(projector, n_embd=64)  # made for a model 64 wide: libmtmd refuses it
    out = json.loads(run_rill("doctor", "--model", str(linked), "--max-tokens", "2", timeout=300).stdout)
    assert out["vision"]["sees_images"] is False and out["vision"]["projector"] == ""
    assert "mmproj-tiny.gguf" in out["vision"]["warning"] and "text only" in out["vision"]["warning"]
