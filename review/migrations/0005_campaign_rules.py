"""PostgreSQL holds the campaign's append-only rules too: a submission and an exposure record are
never changed nor deleted (a change of mind is a new submission that supersedes the old one). The
trigger function comes from annotation 0004; on SQLite the model and queryset guards refuse."""

from django.db import migrations

from studio.migration_ops import PostgresOnly

FORWARD = """
CREATE TRIGGER submission_immutable BEFORE UPDATE OR DELETE ON review_submission
    FOR EACH ROW EXECUTE FUNCTION studio_refuse_row_change();
CREATE TRIGGER exposure_immutable BEFORE UPDATE OR DELETE ON review_exposure
    FOR EACH ROW EXECUTE FUNCTION studio_refuse_row_change();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS exposure_immutable ON review_exposure;
DROP TRIGGER IF EXISTS submission_immutable ON review_submission;
"""


class Migration(migrations.Migration):
    dependencies = [("review", "0004_campaigns"), ("annotation", "0004_release_frozen_rules")]

    operations = [PostgresOnly(FORWARD, BACKWARD)]
