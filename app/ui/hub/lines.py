"""The words of Get More Models' lists: a recommended model, a repository,
a file's header (``app.ui.hub.dialog`` shows them). GUI thread only (Qt's
translate)."""

from __future__ import annotations

from PyQt6.QtCore import QCoreApplication

from app.core.hub.api import RepoSummary
from app.core.hub.fit import Machine, estimate_needed, fit_for
from app.core.hub.recommended import Recommended
from app.core.models.gguf_info import GGUFInfo
from app.core.models.sizes import format_bytes

#: Qt's translate, by the name lupdate looks for.
translate = QCoreApplication.translate


def recommended_line(entry: Recommended, machine: Machine, picked: bool) -> tuple[str, str]:
    fit = fit_for(estimate_needed(entry.approx_size), machine)
    name = ("★ " if picked else "") + entry.name
    details = " · ".join(x for x in (entry.parameters, entry.quant, format_bytes(entry.approx_size), fit.label) if x)
    if picked:
        details += " · " + translate("GetModels", "recommended for this machine")
    return name, details


def repo_line(repo: RepoSummary) -> str:
    parts = [translate("GetModels", "{n} downloads").format(n=f"{repo.downloads:,}"),
             translate("GetModels", "{n} likes").format(n=f"{repo.likes:,}")]
    if repo.updated:
        parts.append(translate("GetModels", "updated {date}").format(date=repo.updated))
    if repo.license:
        parts.append(repo.license)
    if repo.gated:
        parts.append(translate("GetModels", "gated: needs a token"))
    return " · ".join(parts)


def header_line(info: GGUFInfo, n_ctx: int) -> str:
    if not info.ok:
        return info.error
    kv = info.kv_cache_bytes(n_ctx)
    parts = [info.architecture, info.parameters_label,
             translate("GetModels", "trained for {n} tokens").format(n=f"{info.context_length:,}") if info.context_length else "",
             translate("GetModels", "template {kind}").format(kind=info.template_label) if info.template_label else "",
             translate("GetModels", "KV cache {size} at {n}").format(size=format_bytes(kv), n=f"{n_ctx:,}") if kv else ""]
    return " · ".join(p for p in parts if p)
