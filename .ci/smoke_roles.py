"""Logs in as each demo user and checks its home page shows its role's cards: a count of real
work for the roles that have some after `make run`, a sentence for the others (stdlib only)."""

import http.cookiejar
import re
import sys
import urllib.parse
import urllib.request

WITH_WORK = ("annotator", "adjudicator", "admin")
base, password = sys.argv[1], sys.argv[2]
for role in ("annotator", "auditor", "rater", "adjudicator", "admin"):
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(f"{base}/login/").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    data = urllib.parse.urlencode(
        {"username": f"demo-{role}", "password": password, "csrfmiddlewaretoken": token}
    ).encode()
    request = urllib.request.Request(f"{base}/login/", data=data, headers={"Referer": base})  # noqa: S310
    home = opener.open(request).read().decode()
    if f'data-role="{role}"' not in home:
        sys.exit(f"demo-{role} could not log in to its home page")
    counts = [int(n) for n in re.findall(r"<strong data-count>(\d+)</strong>", home)]
    if role in WITH_WORK and not any(counts):
        sys.exit(f"demo-{role} has no work waiting on its home page")
    print(f"demo-{role}: home page ok, counts {counts}")
