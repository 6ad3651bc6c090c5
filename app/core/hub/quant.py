"""What a GGUF file on the Hub is, from its name alone (Qt-free).

* :func:`quantization` reads llama.cpp's quantization label out of a file
  name: ``Llama-3.2-1B-Instruct-Q4_K_M.gguf`` → ``Q4_K_M``,
  ``qwen2.5-0.5b-instruct-iq3_xxs.gguf`` → ``IQ3_XXS``, ``…-BF16.gguf`` →
  ``BF16``, unsloth's ``…-UD-Q4_K_XL.gguf`` → ``Q4_K_XL``. The label is the
  last one in the name (a repository named after one quant may hold others).
* :func:`file_kind` tells a chat model from a vision projector (``mmproj``)
  or an embedding model, which are shown as companions of the models they
  serve, not as models to chat with.
* :func:`bits_per_weight` is an approximate size per weight, used to sort
  and group quantizations (Small / Balanced / Large, as Jan groups them).
"""

from __future__ import annotations

import re

from app.core.base.i18n import QT_TRANSLATE_NOOP
from app.core.models.gguf_splits import split_part

__all__ = [
    "KIND_EMBEDDING", "KIND_MODEL", "KIND_PROJECTOR", "QUANT_GROUPS", "bits_per_weight",
    "file_kind", "quant_group", "quantization",
]

KIND_MODEL = "model"
KIND_PROJECTOR = "mmproj"
KIND_EMBEDDING = "embedding"

# Q4_K_M, Q8_0, Q4_0_4_4, IQ3_XXS, IQ4_NL, TQ1_0, F16, BF16, F32, MXFP4(_MOE), Q4_K_XL.
_QUANT = re.compile(
    r"(?<![A-Za-z0-9])"
    r"(?P<q>(?:I?Q[1-8](?:_(?:[0-9]+|K|XXS|XS|NL|XL|S|M|L))*)|TQ[12]_0|BF16|F16|F32|FP16|FP32|MXFP4(?:_MOE)?)"
    r"(?![A-Za-z0-9])",
    re.IGNORECASE,
)

#: Approximate bits per weight of llama.cpp's quantizations (llama.cpp's
#: quantize tool's table, rounded), for sorting and grouping.
_BITS = {
    "IQ1_S": 1.6, "IQ1_M": 1.8, "TQ1_0": 1.7, "TQ2_0": 2.1, "IQ2_XXS": 2.1, "IQ2_XS": 2.3, "IQ2_S": 2.5,
    "IQ2_M": 2.7, "Q2_K_S": 2.6, "Q2_K": 2.9, "Q2_K_L": 3.0, "IQ3_XXS": 3.1, "IQ3_XS": 3.3, "IQ3_S": 3.4,
    "IQ3_M": 3.7, "Q3_K_S": 3.4, "Q3_K_M": 3.9, "Q3_K_L": 4.3, "Q3_K_XL": 4.4, "IQ4_XS": 4.3, "IQ4_NL": 4.5,
    "Q4_0": 4.5, "Q4_1": 5.0, "Q4_K_S": 4.6, "Q4_K_M": 4.9, "Q4_K_L": 5.1, "Q4_K_XL": 5.1, "MXFP4": 4.25,
    "MXFP4_MOE": 4.25, "Q5_0": 5.5, "Q5_1": 6.0, "Q5_K_S": 5.5, "Q5_K_M": 5.7, "Q5_K_L": 5.9, "Q5_K_XL": 5.9,
    "Q6_K": 6.6, "Q6_K_L": 6.8, "Q6_K_XL": 6.8, "Q8_0": 8.5, "Q8_K_XL": 8.8, "F16": 16.0, "BF16": 16.0,
    "F32": 32.0,
}

#: The groups quantizations are shown in, smallest first (English; translated where shown).
QUANT_GROUPS = (
    QT_TRANSLATE_NOOP("HubQuant", "Small"),
    QT_TRANSLATE_NOOP("HubQuant", "Balanced"),
    QT_TRANSLATE_NOOP("HubQuant", "Large"),
)


def quantization(name: str) -> str:
    """The quantization label in a file name, upper case ("" when none)."""
    base = name.rsplit("/", 1)[-1]
    if base.lower().endswith(".gguf"):
        base = base[:-5]
    found = ""
    for match in _QUANT.finditer(base):
        found = match["q"]
    label = found.upper()
    return {"FP16": "F16", "FP32": "F32"}.get(label, label)


def bits_per_weight(label: str) -> float | None:
    """About how many bits a weight takes in ``label`` (None when unknown)."""
    if label in _BITS:
        return _BITS[label]
    match = re.match(r"I?Q([1-8])", label)
    return float(match.group(1)) + 0.5 if match else None


def quant_group(label: str) -> str:
    """"Small" (under 4 bits a weight), "Balanced" (4 to 6) or "Large"; "" when unknown."""
    bits = bits_per_weight(label)
    if bits is None:
        return ""
    return QUANT_GROUPS[0] if bits < 4.0 else QUANT_GROUPS[1] if bits <= 6.0 else QUANT_GROUPS[2]


def file_kind(name: str, repo: str = "") -> str:
    """KIND_PROJECTOR for a vision projector, KIND_EMBEDDING for an embedding
    model (by its file or repository name), else KIND_MODEL."""
    base = name.rsplit("/", 1)[-1].lower()
    if "mmproj" in base or "projector" in base:
        return KIND_PROJECTOR
    text = f"{repo.lower()}/{base}"
    if re.search(r"(?<![a-z])(?:embed|embedding|embeddings|bge|e5|gte)(?![a-z])", text.replace("_", "-")):
        return KIND_EMBEDDING
    return KIND_MODEL


def is_later_split_part(name: str) -> bool:
    """``…-00002-of-00003.gguf`` and later: part of the first part's model."""
    part = split_part(name)
    return part is not None and part[0] > 1
