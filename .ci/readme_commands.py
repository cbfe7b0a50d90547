"""Runs every command block of the README's "Everyday commands", in order, as written, against the
instance `make run` is serving (stdlib only; run from anywhere, the blocks run in the project
folder).

    python .ci/readme_commands.py BASE_URL DEMO_PASSWORD [--tag-a-step]

With ``--tag-a-step`` (what ``.ci/smoke`` passes) a demo step is tagged first, through the
workspace API, so every block runs over data with tags (releases, manifests and bundles carry
them). A block runs in ``bash -euo pipefail`` with no terminal input; a block that fails, or
prints a traceback, stops the check with its output. A block may be preceded by a step the
README asks the reader to do in the admin, named by a comment the check understands:

    <!-- readme-check: freeze design NAME on RELEASE -->

The check does that step through the API the admin pages call (the same services). Files and
folders the blocks create in the project folder are removed at the end.
"""

from __future__ import annotations

import http.cookiejar
import json
import re
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SECTION = "## Everyday commands"
BLOCK = re.compile(r"(?:<!-- readme-check: (?P<step>[^>]*?) -->\s*)?```sh\n(?P<code>.*?)```", re.S)
FREEZE = re.compile(r"freeze design (?P<name>\w+) on (?P<release>\w+)")


def blocks(readme: str) -> list[tuple[str | None, str]]:
    """(admin step or None, code) of each shell block of the section, in order."""
    start = readme.index(SECTION) + len(SECTION)
    end = readme.find("\n## ", start)
    section = readme[start : end if end > 0 else None]
    return [(m["step"], m["code"]) for m in BLOCK.finditer(section)]


class Admin:
    """A logged-in session of demo-admin, as the admin pages have one."""

    def __init__(self, base: str, password: str):
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        page = self.opener.open(f"{base}/login/").read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
        form = {"username": "demo-admin", "password": password, "csrfmiddlewaretoken": token}
        self._send("POST", "/login/", urllib.parse.urlencode(form).encode(), form=True)

    def _send(self, method: str, path: str, body: bytes | None = None, *, form=False):
        csrf = next((c.value for c in self.jar if c.name == "csrftoken"), "")
        headers = {"X-CSRFToken": csrf, "Referer": self.base}
        headers["Content-Type"] = (
            "application/x-www-form-urlencoded" if form else "application/json"
        )
        url = f"{self.base}{path}"  # our own instance, http(s) only
        request = urllib.request.Request(url, data=body, method=method, headers=headers)  # noqa: S310
        with self.opener.open(request) as response:
            return response.read().decode()

    def get(self, path: str):
        return json.loads(self._send("GET", path))

    def page(self, path: str) -> str:
        return self._send("GET", path)

    def post(self, path: str, data: dict):
        return json.loads(self._send("POST", path, json.dumps(data).encode()))

    def patch(self, path: str, data: dict):
        return json.loads(self._send("PATCH", path, json.dumps(data).encode()))


def tag_a_step(admin: Admin) -> None:
    """Tag the first step (by uid) of the first video of the annotation list, as an annotator
    does in the workspace."""
    found = re.search(r'href="/annotate/videos/(\d+)/"', admin.page("/annotate/"))
    if not found:
        sys.exit("no video to tag a step of on /annotate/")
    steps = admin.get(f"/api/annotation/videos/{found[1]}/workspace/")["steps"]
    step = min((s for s in steps if s["status"] == "active"), key=lambda s: s["uid"])
    saved = admin.patch(
        f"/api/annotation/steps/{step['id']}/",
        {"version": step["version"], "tags": ["action_type:check", "occluded"]},
    )
    tags = saved["steps"][0]["tags"]
    print(f"(tagged step {step['uid']} with {', '.join(tags)} before the blocks)")


def admin_step(step: str, admin: Admin) -> None:
    found = FREEZE.fullmatch(step.strip())
    if not found:
        sys.exit(f"README: unknown readme-check step {step!r}")
    releases = {r["name"]: r["id"] for r in admin.get("/api/review/releases/")}
    design = admin.post(
        "/api/review/designs/",
        {
            "name": found["name"],
            "kind": "audit",
            "method": "stratified",
            "release": releases[found["release"]],
            "seed": 7,
            "params": {"target_n": 6},
        },
    )
    manifest = admin.post(f"/api/review/designs/{design['id']}/freeze/", {})
    print(f"(admin step) froze design {design['name']} as manifest {manifest['name']}")


def main() -> None:
    base, password = sys.argv[1], sys.argv[2]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    found = blocks(readme)
    if not found:
        sys.exit("README: no command blocks under " + SECTION)
    before = {p.name for p in ROOT.iterdir()}
    admin = None
    if "--tag-a-step" in sys.argv[3:]:
        admin = Admin(base, password)
        tag_a_step(admin)
    try:
        for number, (step, code) in enumerate(found, 1):
            if step:
                admin = admin or Admin(base, password)
                admin_step(step, admin)
            print(f"== README block {number}:\n{code.rstrip()}")
            run = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", code],  # noqa: S607 (bash as the reader runs it)
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=900,
            )
            output = run.stdout + run.stderr
            print(output.rstrip())
            if run.returncode != 0 or "Traceback (most recent call last)" in output:
                sys.exit(f"README block {number} failed (exit {run.returncode})")
        print(f"all {len(found)} README command blocks ran as written")
    finally:
        for name in sorted({p.name for p in ROOT.iterdir()} - before):
            path = ROOT / name
            shutil.rmtree(path) if path.is_dir() else path.unlink()


if __name__ == "__main__":
    main()
