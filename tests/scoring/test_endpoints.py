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


# Every form of a refused address: link-local 169.254.169.254 (a9fe:a9fe), the metadata
# address 100.100.100.200 (6464:64c8), multicast, each as IPv4 and in every IPv6 form that
# embeds an IPv4 address.
REFUSED_FORMS = [
    "http://169.254.169.254/v1",
    "http://[::ffff:169.254.169.254]/v1",  # IPv4-mapped
    "http://[::ffff:a9fe:a9fe]/v1",
    "http://[0:0:0:0:0:FFFF:A9FE:A9FE]/v1",
    "http://[::169.254.169.254]/v1",  # IPv4-compatible (the finding)
    "http://[::a9fe:a9fe]/v1",
    "http://[64:ff9b::a9fe:a9fe]/v1",  # NAT64, well-known prefix (the finding)
    "http://[64:ff9b::169.254.169.254]/v1",
    "http://[64:ff9b:1::a9fe:a9fe]/v1",  # NAT64, local-use prefix
    "http://[2002:a9fe:a9fe::1]/v1",  # 6to4
    "http://[2001:0:4136:e378:8000:63bf:5601:5601]/v1",  # Teredo, client 169.254.169.254
    "http://100.100.100.200/v1",
    "http://[::ffff:100.100.100.200]/v1",
    "http://[::6464:64c8]/v1",
    "http://[64:ff9b::6464:64c8]/v1",
    "http://[fd00:ec2::254]/v1",
    "http://[fe80::1]/v1",
    "http://[fe80::1%25eth0]/v1",
    "http://224.0.0.1/v1",
    "http://[::ffff:224.0.0.1]/v1",
    "http://[64:ff9b::e000:1]/v1",
    "http://[ff02::1]/v1",
]


@pytest.mark.parametrize("url", REFUSED_FORMS)
def test_every_form_of_a_link_local_or_metadata_address_is_refused(url):
    with pytest.raises(AddressRefused, match="link-local or metadata address"):
        base_url_check(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://[::ffff:127.0.0.1]:8000/v1",
        "http://[64:ff9b::a00:1]/v1",  # NAT64 of 10.0.0.1: a private address, allowed
        "http://[::ffff:192.168.0.5]/v1",
        "http://[2002:a00:1::1]/v1",
    ],
)
def test_embedded_private_and_loopback_addresses_stay_allowed(url):
    assert base_url_check(url) == url


@pytest.mark.parametrize("url", ["http://[::169.254.169.254]/v1", "http://[64:ff9b::a9fe:a9fe]/v1"])
def test_the_finding_s_addresses_are_refused_as_endpoints(url):
    with pytest.raises(ValidationError) as info:
        endpoint_create(name="meta", base_url=url, model="m")
    assert "link-local or metadata address" in str(info.value.message_dict["base_url"])
    assert not Endpoint.objects.exists()


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
