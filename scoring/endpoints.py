"""Endpoint writes: one validation for the admin form and ``manage.py endpoint_add``."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction

from scoring.models import Endpoint
from scoring.providers import AddressRefused, base_url_check


def endpoint_validate(endpoint: Endpoint) -> None:
    """Field rules plus the address policy (scoring/providers/addresses.py); ValidationError."""
    try:
        endpoint.base_url = base_url_check(endpoint.base_url)
    except AddressRefused as exc:
        raise ValidationError({"base_url": str(exc)}) from None
    endpoint.full_clean()


@transaction.atomic
def endpoint_create(**fields) -> Endpoint:
    endpoint = Endpoint(**fields)
    endpoint_validate(endpoint)
    endpoint.save()
    return endpoint
