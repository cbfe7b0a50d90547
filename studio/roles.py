"""The five roles, as Django groups with permissions.

A role is a group; a user may hold several. ``admin`` is a role, and Django superusers count as
admins too. The groups and their permissions are (re)created after every migrate, so a fresh
database always has them and a permission added in code reaches existing installs.
"""

from __future__ import annotations

from django.apps import apps
from django.contrib.auth.models import Group, Permission
from django.http import Http404

ANNOTATOR = "annotator"
AUDITOR = "auditor"
RATER = "rater"
ADJUDICATOR = "adjudicator"
ADMIN = "admin"
ROLES = (ANNOTATOR, AUDITOR, RATER, ADJUDICATOR, ADMIN)

# Permissions per role, as "app_label.codename". The admin role gets every permission.
ROLE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    ANNOTATOR: (
        "media.view_sourcevideo",
        "annotation.view_microstep",
        "annotation.add_microstep",
        "annotation.change_microstep",
        "annotation.view_steprevision",
    ),
    AUDITOR: (),
    RATER: (),
    ADJUDICATOR: (
        "annotation.view_microstep",
        "annotation.change_microstep",
        "annotation.view_steprevision",
    ),
    ADMIN: (),
}


def roles_of(user) -> set[str]:
    if not user.is_authenticated:
        return set()
    cached = getattr(user, "_studio_roles", None)
    if cached is None:
        cached = set(user.groups.filter(name__in=ROLES).values_list("name", flat=True))
        if user.is_superuser:
            cached.add(ADMIN)
        user._studio_roles = cached
    return cached


def has_role(user, role: str) -> bool:
    return role in roles_of(user)


def is_admin(user) -> bool:
    return has_role(user, ADMIN)


def admin_or_404(request) -> None:
    """Admins only; anyone else gets a 404 (the staff pages name reviewers, items and runs)."""
    if not is_admin(request.user):
        raise Http404


def sync_role_groups(**kwargs) -> None:
    """Create the role groups and give each its permissions (idempotent)."""
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        create_permissions(app_config, verbosity=0)
    for role in ROLES:
        group, _ = Group.objects.get_or_create(name=role)
        if role == ADMIN:
            perms = Permission.objects.all()
        else:
            wanted = ROLE_PERMISSIONS[role]
            perms = [
                p
                for p in Permission.objects.select_related("content_type")
                if f"{p.content_type.app_label}.{p.codename}" in wanted
            ]
        group.permissions.set(perms)
