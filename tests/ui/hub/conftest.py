"""The fake Hub fixtures (tests/helpers/hub_fixtures.py)."""

from tests.helpers.hub_fixtures import GATED, MMPROJ, MODEL, MODEL_Q8, REPO, gguf_blobs, hub, models_dir  # noqa: F401

__all__ = ["GATED", "MMPROJ", "MODEL", "MODEL_Q8", "REPO"]
