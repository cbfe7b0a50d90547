"""The links of the top bar: who sees each, and which one is the current page."""

from __future__ import annotations

from dataclasses import dataclass

from django.urls import reverse

from studio.roles import ADJUDICATOR, ADMIN, ANNOTATOR, roles_of


@dataclass(frozen=True)
class NavLink:
    label: str
    url_name: str
    roles: frozenset[str] | None  # None: every signed-in user


NAV_LINKS = (
    NavLink("Home", "home", None),
    NavLink("Videos", "annotation:video-list", frozenset({ANNOTATOR, ADJUDICATOR, ADMIN})),
    NavLink("Runs", "scoring:run-list", frozenset({ADMIN})),
    NavLink("Studies", "scoring:study-list", frozenset({ADMIN})),
    NavLink("Leaderboard", "scoring:leaderboard", frozenset({ADMIN})),
    NavLink("Admin", "admin:index", frozenset({ADMIN})),
    NavLink("API", "api-docs", frozenset({ADMIN})),
)


def nav_links_for(user, path: str) -> list[dict]:
    """The links the user may follow, the current one marked: the link whose address is the
    longest prefix of ``path`` (the home page only on itself)."""
    held = roles_of(user)
    links = [
        {"label": link.label, "url": reverse(link.url_name), "current": False}
        for link in NAV_LINKS
        if link.roles is None or link.roles & held
    ]

    def matches(url: str) -> bool:
        return path == url if url == "/" else path.startswith(url)

    current = max(
        (x for x in links if matches(x["url"])), key=lambda x: len(x["url"]), default=None
    )
    if current is not None:
        current["current"] = True
    return links
