"""The fake Hub answers huggingface_hub's own client as the Hub would (run
where huggingface_hub is installed; Rill itself does not depend on it:
app/core/hub/api.py says why). Checked by hand with huggingface_hub 2.4.0."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.core.hub.conftest import GATED, MODEL, REPO
from tests.helpers.fake_hub import FakeHub


def test_hfapi_lists_describes_and_downloads_from_the_fake_hub(hub: FakeHub, tmp_path: Path) -> None:
    hf = pytest.importorskip("huggingface_hub")
    api = hf.HfApi(endpoint=hub.url, token=False)
    found = list(api.list_models(search="tiny", filter="gguf", expand=["downloads", "likes", "lastModified"]))
    assert [m.id for m in found] == [REPO] and found[0].downloads == 1234
    tree = {f.path: f for f in api.list_repo_tree(REPO, recursive=True)}
    assert tree[MODEL].lfs.sha256 and tree[MODEL].size == len(hub.repos[REPO].files[MODEL])
    path = hf.hf_hub_download(REPO, MODEL, local_dir=tmp_path, endpoint=hub.url, token=False)
    assert Path(path).read_bytes() == hub.repos[REPO].files[MODEL]
    with pytest.raises(hf.errors.GatedRepoError):
        hf.hf_hub_download(GATED, MODEL, local_dir=tmp_path, endpoint=hub.url, token=False)
