"""Endpoints: only http(s), no credentials in the URL, link-local and metadata addresses refused
unless allowed; loopback and private addresses are normal (a local vLLM)."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from scoring.endpoints import endpoint_create
from scoring.models import Endpoint
from scoring.providers import AddressRefused, base_url_check

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/v1",
        "http://10.1.2.3/v1",
        "https://192.168.0.5:8443/v1/",
        "http://[::1]:9000/v1",
        "http://localhost:8000/v1",
    ],
)
def test_loopback_and_private_addresses_are_allowed(url):
    assert base_url_check(url) == url.rstrip("/")


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://example.org/v1", "http"),
        ("file:///etc/passwd", "http"),
        ("http://user:sk-secret@example.org/v1", "credentials"),
        ("http://169.254.169.254/latest", "link-local"),
        ("http://[fe80::1]/v1", "link-local"),
        ("http://metadata.google.internal/v1", "metadata"),
        ("http://example.org/v1?key=1", "query"),
    ],
)
def test_refused_addresses_say_why(url, why):
    with pytest.raises(AddressRefused, match=why):
        base_url_check(url)


def test_the_allow_list_lets_a_link_local_host_through(settings):
    settings.MODEL_ENDPOINT_ALLOWED_HOSTS = ["169.254.10.10"]
    assert base_url_check("http://169.254.10.10:8000/v1") == "http://169.254.10.10:8000/v1"


def test_endpoint_create_refuses_a_bad_url_and_writes_nothing():
    with pytest.raises(ValidationError) as info:
        endpoint_create(name="meta", base_url="http://169.254.169.254/v1", model="m")
    assert "base_url" in info.value.message_dict
    assert not Endpoint.objects.exists()


def test_endpoint_add_command(settings):
    out = io.StringIO()
    call_command(
        "endpoint_add",
        "local-vllm",
        "--base-url",
        "http://127.0.0.1:8001/v1/",
        "--model",
        "Qwen/Qwen2.5-VL-7B-Instruct",
        "--api-key-env",
        "VLLM_KEY",
        "--media",
        "video_url",
        "--max-concurrency",
        "8",
        "--rpm",
        "600",
        "--json-schema",
        "--open-weights",
        stdout=out,
    )
    endpoint = Endpoint.objects.get(name="local-vllm")
    assert endpoint.base_url == "http://127.0.0.1:8001/v1"
    assert (endpoint.media, endpoint.max_concurrency, endpoint.rpm) == ("video_url", 8, 600)
    assert endpoint.json_schema and endpoint.open_weights and endpoint.api_key_env == "VLLM_KEY"
    with pytest.raises(CommandError, match="api_key_env"):
        call_command(
            "endpoint_add",
            "x",
            "--base-url",
            "http://127.0.0.1/v1",
            "--model",
            "m",
            "--api-key-env",
            "sk-abc123",
        )
    assert not Endpoint.objects.filter(name="x").exists()
