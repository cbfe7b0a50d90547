"""HTTP Range headers from anyone: every header is answered with 200, 206 or 416, never an error.

The two places that serve bytes by range are the opaque media URL (`/m/<token>`) and the
workspace's source endpoint; both go through `media.serving.parse_range`.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from annotation.models import VideoAssignment
from media.grants import grant_create
from media.serving import file_response, parse_range
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

FUZZ_HEADERS = 10_000
HEADERS_PER_ENDPOINT = 300
SEED = 20261201


@pytest.fixture
def video(import_source, cfr_video, annotator):
    video = import_source(cfr_video)
    VideoAssignment.objects.create(video=video, annotator=annotator)
    return video


@pytest.fixture
def urls(client, video, annotator):
    """Both range-serving URLs of one file, for a logged-in annotator."""
    assert client.login(username=annotator.username, password=PASSWORD)
    return {
        "grant": grant_create(user=annotator, source=video),
        "api": f"/api/annotation/videos/{video.pk}/source/",
    }


def _fuzz_header(rng: random.Random) -> str:
    """A Range header drawn from shapes that break parsers: huge and zero-padded numbers, empty
    parts, several ranges, other units, whitespace, signs, non-ASCII digits, plain garbage."""

    def number() -> str:
        kind = rng.randrange(8)
        if kind == 0:
            return "9" * rng.choice((19, 20, 100, 4300, 4301, 10_000))
        if kind == 1:
            return "0" * rng.randrange(1, 5000) + str(rng.randrange(100))
        if kind == 2:
            return ""
        if kind == 3:
            return str(rng.randrange(-5, 5))
        if kind == 4:
            # Arabic-Indic and fullwidth digits, a vulgar fraction, other number syntaxes.
            odd = ("\u0661\u0662", "\uff11\uff12", "\u00bd", "1e3", "0x10", "+5", " 7", "1_000")
            return rng.choice(odd)
        return str(rng.randrange(0, 2 ** rng.randrange(1, 70)))

    kind = rng.randrange(10)
    if kind == 0:
        return "".join(rng.choice("bytes=-,0123456789 \t;") for _ in range(rng.randrange(40)))
    if kind == 1:
        return ", ".join(f"{number()}-{number()}" for _ in range(rng.randrange(1, 4)))
    unit = rng.choice(("bytes", "bytes", "bytes", "BYTES", "items", "bytes ", ""))
    return f"{unit}={number()}-{number()}"


def _check(response, size: int) -> None:
    assert response.status_code in (200, 206, 416)
    if response.status_code == 206:
        first, last, total = map(
            int, re.fullmatch(r"bytes (\d+)-(\d+)/(\d+)", response["Content-Range"]).groups()
        )
        assert 0 <= first <= last < total == size
        assert int(response["Content-Length"]) == last - first + 1
    elif response.status_code == 416:
        assert response["Content-Range"] == f"bytes */{size}"
    else:
        assert int(response["Content-Length"]) == size


def test_a_range_of_4301_nines_is_answered_not_an_error(client, urls, video):
    size = video.file.size
    nines = "9" * 4301  # one digit past Python's int() limit
    for url in urls.values():
        beyond = client.get(url, headers={"Range": f"bytes={nines}-"})
        assert beyond.status_code == 416, url
        assert beyond["Content-Range"] == f"bytes */{size}"
        to_the_end = client.get(url, headers={"Range": f"bytes=0-{nines}"})
        assert to_the_end.status_code == 206, url
        assert to_the_end["Content-Range"] == f"bytes 0-{size - 1}/{size}"
        whole_as_suffix = client.get(url, headers={"Range": f"bytes=-{nines}"})
        assert whole_as_suffix.status_code == 206, url
        assert whole_as_suffix["Content-Length"] == str(size)


def test_range_positions_are_bounded_in_digits_and_value():
    assert parse_range("bytes=" + "0" * 5000 + "5-9", 100) == (5, 9)  # padding is not a bound
    assert parse_range("bytes=1-" + "9" * 19, 100) == (1, 99)
    assert parse_range("bytes=" + "9" * 19 + "-", 100) == "unsatisfiable"
    assert parse_range("bytes=\u0661-\u0662", 100) is None  # only ASCII digits are numbers here
    assert parse_range("bytes=0-", 0) == "unsatisfiable"  # an empty file has no byte to send
    assert parse_range("bytes=-5", 0) == "unsatisfiable"


def test_ten_thousand_fuzzed_range_headers_raise_nothing(client, urls, video, rf):
    size = video.file.size
    path = Path(video.file.path)
    rng = random.Random(SEED)
    headers = [_fuzz_header(rng) for _ in range(FUZZ_HEADERS)]
    for header in headers:
        # The parser, against a file of each awkward size.
        for file_size in (0, 1, size):
            answer = parse_range(header, file_size)
            assert answer in (None, "unsatisfiable") or (0 <= answer[0] <= answer[1] < file_size)
        # The response both endpoints return, built from a real file.
        request = rf.get("/", headers={"Range": header})
        response = file_response(
            request, path=path, storage_name=video.file.name, content_type="video/mp4", max_age=0
        )
        _check(response, size)
    # A share of them through each endpoint's whole request path (session, access check, view):
    # a full request costs milliseconds, so all 10,000 twice would take minutes.
    for url in urls.values():
        for header in headers[:HEADERS_PER_ENDPOINT]:
            _check(client.get(url, headers={"Range": header}), size)
