"""Hooks that extend the demo data set from the layers above annotation.

``annotation.demo.seed_demo`` creates the base demo (videos, steps, one user per role) and then
calls every registered seeder, in ``order``, inside the same transaction, with a ``DemoContext``.
A higher layer (review, scoring) registers its seeder from its ``AppConfig.ready()``::

    @demo_seeder(order=20)
    def seed_audit_demo(ctx: DemoContext) -> None:
        reviewer = ctx.add_user("demo-reviewer-b", AUDITOR)
        ...

so the base demo never imports a layer above it, and ``make run`` gives every role real work.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class DemoContext:
    password: str
    users: dict[str, object]  # the demo user of each role, by role
    extra_users: list[object] = field(default_factory=list)  # added by seeders, printed too
    release: object | None = None  # the frozen demo release, once a seeder froze it
    notes: list[str] = field(default_factory=list)  # lines the command prints after the users

    def add_user(self, username: str, *roles: str):
        """A further demo user with the demo password (for example a second reviewer)."""
        from django.contrib.auth import get_user_model
        from django.contrib.auth.models import Group

        user = get_user_model().objects.create_user(username=username, password=self.password)
        for role in roles:
            user.groups.add(Group.objects.get(name=role))
        self.extra_users.append(user)
        return user


Seeder = Callable[[DemoContext], None]
_SEEDERS: dict[str, tuple[int, Seeder]] = {}


def demo_seeder(order: int = 100) -> Callable[[Seeder], Seeder]:
    """Register ``fn(ctx)`` to run after the base demo, lowest ``order`` first."""

    def register(fn: Seeder) -> Seeder:
        _SEEDERS[f"{fn.__module__}.{fn.__qualname__}"] = (order, fn)
        return fn

    return register


def demo_seeders() -> list[Seeder]:
    return [fn for _, fn in sorted(_SEEDERS.values(), key=lambda entry: entry[0])]
