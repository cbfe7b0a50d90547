"""Each person's presentation order: one function, recomputable from an export.

``order_key(person_id, sample_id, seed)`` is the lowercase hex SHA-256 of the UTF-8 text
``"{person_id}:{sample_id}:{seed}"`` (person id: the user's integer id; sample id: the
manifest's sample UUID in its canonical 36-character lowercase form; seed: the campaign's
decimal integer). A person's items are sorted by that key ascending (distinct sample ids give
distinct keys unless SHA-256 collides; ``person_order`` breaks such a tie by sample id).
"""

from __future__ import annotations

import hashlib
import uuid


def order_key(person_id: int, sample_id: uuid.UUID | str, seed: int) -> str:
    text = f"{int(person_id)}:{uuid.UUID(str(sample_id))}:{int(seed)}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def person_order(person_id: int, sample_ids, seed: int) -> list[str]:
    """The sample ids in the order ``person_id`` sees them."""
    keyed = sorted((order_key(person_id, s, seed), str(uuid.UUID(str(s)))) for s in sample_ids)
    return [sample for _, sample in keyed]
