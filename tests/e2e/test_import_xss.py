"""An upload's title and the reason it was refused are text, never markup: payloads in both render
inert on the import page, in the server's HTML and after its script has polled and rewritten it
(Chromium, under the enforced CSP), and on the list of imports."""

from __future__ import annotations

import pytest

from tests.e2e.test_workspace_xss import ONERROR, SCRIPT, SVG, assert_inert

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def test_import_page_payloads_never_execute(open_as, admin_user, scene):
    from media.models import VideoImport

    title = f"{SCRIPT}{ONERROR}.mp4"
    job = VideoImport.objects.create(
        scene=scene,
        title=title,
        upload="imports/gone.upload",
        size_bytes=10,
        status=VideoImport.Status.FAILED,
        error=f"this file was already imported as “{SVG}{ONERROR}”",
        created_by=admin_user,
    )
    context = open_as(admin_user)
    dialogs = open_as.dialogs
    page = context.new_page()
    page.goto(f"/admin/media/videoimport/{job.pk}/change/")
    error = page.locator("#import-progress [data-role=error]")
    error.wait_for()
    # The script has polled once and written the state line and the reason itself.
    page.wait_for_function(
        "() => document.querySelector('#import-progress [data-role=state]').textContent"
        ".includes('refused')"
    )
    assert SVG in error.text_content() and ONERROR in error.text_content()
    assert_inert(page, dialogs)
    page.goto("/admin/media/videoimport/")
    assert page.get_by_text(title).count() == 1
    assert_inert(page, dialogs)
