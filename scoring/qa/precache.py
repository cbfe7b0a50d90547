"""A new QA run's dialogues taken from the cache before any driver starts (``scoring.runs.
precache``): the first turns of all groups are keyed and looked up together; every turn found
takes its result, and the turn after it (its dialogue now known: the cached reply is the
model's answer) is keyed and looked up in the next round, and so on. A turn not found is left
pending for a driver, the turns after it waiting, as if the run had just begun there.

A rerun of the same set with the same endpoint and package is therefore finished when it is
created, in as many rounds of queries as its longest dialogue has turns."""

from __future__ import annotations

from functools import partial
from itertools import groupby

from scoring.models import ItemState, Run, RunItem
from scoring.packages import package_verified
from scoring.qa.dialogue import QaTurnHandler, reply_content
from scoring.runs.media import digests_load, digests_record
from scoring.runs.precache import cached_hits, item_keyed, take_cached
from studio import services as studio_services


def dialogues_from_cache(run: Run, items: list[RunItem]) -> int:
    """Before a new QA run's items (in dialogue order) are stored: take every turn the cache
    holds, dialogue by dialogue, and make the turn after the last one taken pending. Returns
    how many turns were taken."""
    package = package_verified(run.package)
    handler = QaTurnHandler()
    digests_load([item.media for item in items if item.media is not None])
    dialogues = [list(turns) for _group, turns in groupby(items, key=lambda i: i.sample_id)]
    earlier: dict[int, list] = {d: [] for d in range(len(dialogues))}
    frontier = [(d, 0) for d in range(len(dialogues))]
    payloads: list = []
    now, taken = studio_services.now(), 0
    while frontier:
        keyed: dict[str, list[tuple[int, int]]] = {}
        for d, t in frontier:
            item = dialogues[d][t]
            request_of = partial(handler.request, run, earlier=earlier[d], record=False)
            if item_keyed(run, package, request_of, item, payloads):
                keyed.setdefault(item.cache_key, []).append((d, t))
        frontier = []
        for key, hit in cached_hits(keyed).items():
            for d, t in keyed[key]:
                item = dialogues[d][t]
                take_cached(item, hit, now)
                taken += 1
                earlier[d].append((item.input, reply_content(hit.raw_response)))
                if t + 1 < len(dialogues[d]):
                    dialogues[d][t + 1].state = ItemState.PENDING
                    frontier.append((d, t + 1))
    digests_record(payloads)
    return taken
