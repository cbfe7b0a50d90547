"""A frozen release as a Hugging Face datasets folder that ``datasets.load_dataset`` loads, with
the set's hashes in its card."""

import hashlib
import json

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_the_folder_loads_with_datasets_and_names_its_hashes(study_release, tmp_path, monkeypatch):
    # Offline, with its cache in this test's folder (read when datasets is first imported).
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    datasets = pytest.importorskip("datasets")
    folder = tmp_path / "hf"
    call_command("export_hf_dataset", str(folder), "--release", "sr")
    card = (folder / "README.md").read_text()
    assert study_release.sample_list_sha256 in card and study_release.manifest_sha256 in card
    data = (folder / "data" / "test.jsonl").read_bytes()
    assert hashlib.sha256(data).hexdigest() in card
    loaded = datasets.load_dataset(str(folder), split="test")
    assert loaded.num_rows == 6
    first = json.loads(data.splitlines()[0])
    assert loaded[0]["sample_id"] == first["sample_id"]
    assert loaded[0]["local_intent"] == first["local_intent"]
    assert set(loaded.column_names) >= {"start_us", "cutoff_us", "scene", "video_sha256"}
