"""The home page's cards: per role a user holds, what to do next (with a link and a count) or,
while there is nothing for the role yet, a sentence saying what will appear and who assigns it.

Each app registers its providers in its own ``home.py``, imported from ``AppConfig.ready()``::

    @home_card
    def annotator_cards(user):
        if ANNOTATOR in roles_of(user):
            yield HomeCard(role=ANNOTATOR, title="My videos", text="...", count=3, ...)

A provider returns the cards for the roles the user holds (it should check them itself so it
runs no query for a role the user lacks); ``home_cards_for`` drops any card of another role all
the same, so a provider can never show one role's work to another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.utils.translation import ngettext

from studio.roles import ADJUDICATOR, ADMIN, ANNOTATOR, AUDITOR, RATER, ROLES, roles_of


@dataclass(frozen=True)
class HomeCard:
    role: str  # one of studio.roles.ROLES
    title: str
    text: str  # what to do next, or what the role will see and who assigns it
    url: str = ""
    link_text: str = ""
    count: int | None = None
    # What is counted, singular and plural: ("video assigned", "videos assigned").
    count_label: tuple[str, str] | str = ""
    order: int = 100

    @property
    def count_words(self) -> str:
        """The count's words in the form its number takes (ngettext)."""
        if isinstance(self.count_label, str):
            return self.count_label
        return ngettext(*self.count_label, self.count or 0)

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"Unknown role {self.role!r}; expected one of {', '.join(ROLES)}.")


Provider = Callable[[object], Iterable[HomeCard]]
_PROVIDERS: list[Provider] = []

ROLE_NAMES = {
    ANNOTATOR: "Annotator",
    AUDITOR: "Auditor",
    RATER: "Rater",
    ADJUDICATOR: "Adjudicator",
    ADMIN: "Admin",
}

# Shown for a role the user holds while no provider has a card for it.
WAITING: dict[str, tuple[str, str]] = {
    ANNOTATOR: (
        "My videos",
        "You will see your videos here when an admin assigns you one to segment and label.",
    ),
    AUDITOR: (
        "Audit items",
        "You will see audit items here when an admin opens an audit campaign that includes you. "
        "You review them blind: no model, judge or annotator is named.",
    ),
    RATER: (
        "Rating items",
        "You will see human-baseline and judge-validation items here when an admin assigns you "
        "to a rating campaign. You answer them blind, from the clip alone.",
    ),
    ADJUDICATOR: (
        "Disagreements",
        "You will see items where reviewers disagree here when an audit that an admin assigns "
        "to you finds them.",
    ),
    ADMIN: ("Administration", "Import videos and assign them to annotators in the admin."),
}


def home_card(fn: Provider) -> Provider:
    """Register ``fn(user) -> Iterable[HomeCard]`` as a source of home-page cards."""
    if fn not in _PROVIDERS:
        _PROVIDERS.append(fn)
    return fn


def _sort_key(card: HomeCard) -> tuple:
    return (ROLES.index(card.role), card.order, card.title)


def home_cards_for(user) -> list[HomeCard]:
    """The cards of the roles the user holds, by role (in ``ROLES`` order), then ``order``; a
    held role without any card gets its waiting sentence."""
    held = roles_of(user)
    cards = [card for provider in _PROVIDERS for card in provider(user) if card.role in held]
    covered = {card.role for card in cards}
    for role in held - covered:
        title, text = WAITING[role]
        cards.append(HomeCard(role=role, title=title, text=text, order=1000))
    return sorted(cards, key=_sort_key)
