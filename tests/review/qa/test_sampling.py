"""QA-review manifests: whole groups, seeded, quotas; both hashes recompute from the export."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.core.exceptions import ValidationError

from review.qa.imports import qa_import
from review.qa.sampling import draw, qa_manifest_export, qa_manifest_freeze
from tests.review.qa.helpers import group, jsonl

pytestmark = pytest.mark.django_db


@pytest.fixture
def group_set(make_video, admin_user):
    video = make_video(seconds=20)
    records = []
    for n in range(12):
        structure = ("node", "edge", "chain", "loop")[n % 4]
        turns = 3 if structure in ("chain", "loop") else 1
        records.append(group(n, video.sha256, structure=structure, turns=turns))
    return qa_import(text=jsonl(records), name="qa_v1", author=admin_user)[0]


def test_same_seed_same_groups_and_whole_groups(group_set, admin_user):
    a = draw(group_set=group_set, params={"n_groups": 5}, seed=20260921)
    b = draw(group_set=group_set, params={"n_groups": 5}, seed=20260921)
    c = draw(group_set=group_set, params={"n_groups": 5}, seed=7)
    assert a == b and len(a) == 5 and len(set(a)) == 5
    assert a != c
    manifest = qa_manifest_freeze(
        group_set=group_set, name="qa_review_v1", seed=20260921, params={"n_groups": 5},
        author=admin_user,
    )  # fmt: skip
    sampled = sorted(str(s) for s in manifest.samples.values_list("sample_id", flat=True))
    assert sampled == a
    # every turn of a drawn multi-turn group travels with it: the group is the sample
    records = [json.loads(x) for x in manifest_export_lines(manifest, group_set)]
    for r in records:
        assert len(r["turns"]) == r["turn_count"]


def manifest_export_lines(manifest, group_set):
    from review.qa.imports import qa_export_bytes

    uids = [str(s) for s in manifest.samples.values_list("sample_id", flat=True)]
    return qa_export_bytes(group_set=group_set, uids=uids).decode().splitlines()


def test_quotas_by_structure(group_set):
    drawn = draw(
        group_set=group_set,
        params={"n_groups": 4, "by": "structure", "quotas": {"chain": 3, "node": 1}},
        seed=1,
    )
    from review.qa.models import QaGroup

    structures = sorted(QaGroup.objects.filter(uid__in=drawn).values_list("structure", flat=True))
    assert structures == ["chain", "chain", "chain", "node"]
    with pytest.raises(ValidationError, match="fewer than its quota"):
        draw(
            group_set=group_set,
            params={"n_groups": 4, "by": "structure", "quotas": {"chain": 4}},
            seed=1,
        )
    with pytest.raises(ValidationError, match="add up to"):
        draw(group_set=group_set, params={"n_groups": 5, "by": "structure",
                                          "quotas": {"chain": 1}}, seed=1)  # fmt: skip


def test_hashes_recompute_from_the_export(group_set, admin_user, tmp_path):
    manifest = qa_manifest_freeze(
        group_set=group_set, name="qa_review_v1", seed=3, params={"n_groups": 4},
        author=admin_user,
    )  # fmt: skip
    out = qa_manifest_export(manifest=manifest, path=tmp_path / "bundle")
    data = {n: (out / n).read_bytes() for n in ("manifest.json", "samples.txt", "groups.jsonl")}
    sha = lambda b: hashlib.sha256(b).hexdigest()  # noqa: E731
    header = json.loads(data["manifest.json"])
    uids = [json.loads(line)["uid"] for line in data["groups.jsonl"].splitlines()]
    assert uids == sorted(uids) and len(uids) == 4
    assert sha("".join(u + "\n" for u in uids).encode()) == header["sample_list_sha256"]
    assert sha(data["samples.txt"]) == header["sample_list_sha256"]
    assert sha(data["groups.jsonl"]) == header["records_sha256"]
    assert sha(data["manifest.json"]) == manifest.manifest_sha256
    assert header["kind"] == "qa_review" and header["method"] == "complete_groups"
    assert header["release"]["manifest_sha256"] == group_set.manifest_sha256
    assert header["design"] == {"n_groups": 4, "by": None, "quotas": None, "split": None}


def test_taken_name_and_too_many_groups_write_nothing(group_set, admin_user):
    from review.models import Manifest

    with pytest.raises(ValidationError, match="exceeds"):
        qa_manifest_freeze(group_set=group_set, name="qa_big", seed=1,
                           params={"n_groups": 99}, author=admin_user)  # fmt: skip
    assert not Manifest.objects.exists()


def test_commands_freeze_and_export(group_set, tmp_path, admin_user, client):
    import io

    from django.core.management import CommandError, call_command

    from review.manifests.services import bundle_zip_file, manifest_export
    from review.models import Manifest

    out = io.StringIO()
    call_command("freeze_qa_manifest", "qa_cli", "--set", "qa_v1", "--seed", "9",
                 "--params", '{"n_groups": 3}', stdout=out)  # fmt: skip
    assert "3 groups" in out.getvalue()
    call_command("export_qa_manifest", "qa_cli", str(tmp_path / "b"), stdout=io.StringIO())
    sums = (tmp_path / "b" / "SHA256SUMS").read_text()
    for line in sums.splitlines():
        digest, name = line.split("  ")
        assert hashlib.sha256((tmp_path / "b" / name).read_bytes()).hexdigest() == digest
    with pytest.raises(CommandError, match="n_groups"):
        call_command("freeze_qa_manifest", "qa_bad", "--set", "qa_v1", "--seed", "9",
                     "--params", '{"n_groups": 0}', stdout=io.StringIO())  # fmt: skip
    manifest = Manifest.objects.get(name="qa_cli")
    from annotation.releases import BundleError

    with pytest.raises(BundleError, match="export_qa_manifest"):
        manifest_export(manifest=manifest, path=tmp_path / "c")
    import zipfile

    with zipfile.ZipFile(bundle_zip_file(manifest=manifest)) as archive:
        assert sorted(archive.namelist()) == [
            "SHA256SUMS", "groups.jsonl", "manifest.json", "samples.txt"
        ]  # fmt: skip


def test_a_named_list_of_groups_freezes_exactly_those(group_set, admin_user):
    from review.manifests.models import Manifest
    from review.qa.sampling import qa_manifest_uids, uids_design
    from tests.review.qa.helpers import group_uid

    wanted = [group_uid(7), group_uid(2), group_uid(11)]
    digest = "ab" * 32
    manifest = qa_manifest_freeze(
        group_set=group_set, name="qa_flags_v1", seed=3,
        params=uids_design(wanted, list_sha256=digest), author=admin_user,
    )  # fmt: skip
    assert qa_manifest_uids(manifest) == sorted(wanted)
    header = json.loads(manifest.manifest_text)
    assert header["design"]["uids"] == sorted(wanted)
    assert header["design"]["list_sha256"] == digest
    assert manifest.manifest_sha256 == hashlib.sha256(manifest.manifest_text.encode()).hexdigest()
    # The same list in another order is the same manifest's design (sorted when frozen).
    again = qa_manifest_freeze(
        group_set=group_set, name="qa_flags_v2", seed=3,
        params=uids_design(list(reversed(wanted)), list_sha256=digest), author=admin_user,
    )  # fmt: skip
    assert again.sample_list_sha256 == manifest.sample_list_sha256
    # A design without a list keeps its exact bytes (no empty members).
    plain = qa_manifest_freeze(
        group_set=group_set, name="qa_plain", seed=3, params={"n_groups": 2}, author=admin_user
    )
    assert set(json.loads(plain.manifest_text)["design"]) == {"n_groups", "by", "quotas", "split"}

    count = Manifest.objects.count()
    bad = [
        ({"n_groups": 1, "uids": [group_uid(99)]}, "not in QA group set"),
        ({"n_groups": 2, "uids": [group_uid(1), group_uid(1)]}, "twice"),
        ({"n_groups": 3, "uids": [group_uid(1)]}, "names 1 groups"),
        ({"n_groups": 1, "uids": ["not-a-uid"]}, "not a group uid"),
        ({"n_groups": 1, "uids": [group_uid(1)], "split": "test"}, "no by, quotas or split"),
        ({"n_groups": 1, "list_sha256": digest}, "goes with a list"),
    ]
    for params, message in bad:
        with pytest.raises(ValidationError, match=message):
            qa_manifest_freeze(
                group_set=group_set, name="qa_bad", seed=1, params=params, author=admin_user
            )
    assert Manifest.objects.count() == count


def test_the_command_freezes_the_groups_of_a_list_file(group_set, tmp_path):
    import io

    from django.core.management import CommandError, call_command

    from review.manifests.models import Manifest
    from review.qa.sampling import qa_manifest_uids
    from tests.review.qa.helpers import group_uid

    flags = tmp_path / "flags.jsonl"
    lines = [{"format": "intent-studio.qa-flag/1", "group": group_uid(n), "flags": ["x"]}
             for n in (4, 1)]  # fmt: skip
    flags.write_bytes(b"".join(json.dumps(x).encode() + b"\n" for x in lines))
    out = io.StringIO()
    call_command("freeze_qa_manifest", "qa_from_flags", "--set", "qa_v1", "--seed", "1",
                 "--from-list", str(flags), stdout=out)  # fmt: skip
    manifest = Manifest.objects.get(name="qa_from_flags")
    assert qa_manifest_uids(manifest) == sorted([group_uid(4), group_uid(1)])
    design = json.loads(manifest.manifest_text)["design"]
    assert design["list_sha256"] == hashlib.sha256(flags.read_bytes()).hexdigest()
    plain = tmp_path / "uids.txt"
    plain.write_text(f"{group_uid(3)}\n\n{group_uid(5)}\n")
    call_command("freeze_qa_manifest", "qa_from_uids", "--set", "qa_v1", "--seed", "1",
                 "--from-list", str(plain), stdout=io.StringIO())  # fmt: skip
    assert qa_manifest_uids(Manifest.objects.get(name="qa_from_uids")) == sorted(
        [group_uid(3), group_uid(5)]
    )
    count = Manifest.objects.count()
    bad = tmp_path / "bad.jsonl"
    for text, message in [('{"flags": []}\n', "must name its group"), ("\n", "names no group"),
                          (f"{group_uid(77)}\n", "not in QA group set")]:  # fmt: skip
        bad.write_text(text)
        with pytest.raises(CommandError, match=message):
            call_command("freeze_qa_manifest", "qa_bad_list", "--set", "qa_v1", "--seed", "1",
                         "--from-list", str(bad), stdout=io.StringIO())  # fmt: skip
    with pytest.raises(CommandError, match="--params or --from-list"):
        call_command("freeze_qa_manifest", "qa_none", "--set", "qa_v1", "--seed", "1",
                     stdout=io.StringIO())  # fmt: skip
    assert Manifest.objects.count() == count
