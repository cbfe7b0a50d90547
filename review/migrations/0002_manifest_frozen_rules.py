"""PostgreSQL holds the manifest rules too: a frozen manifest never changes, no manifest or sample
is ever deleted, samples never change, and a frozen manifest takes no new samples. The trigger
functions shared with releases come from annotation 0004; on SQLite only the code refuses."""

from django.db import migrations

from studio.migration_ops import PostgresOnly


FORWARD = """
CREATE FUNCTION review_manifestsample_refuse_late_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM review_manifest
               WHERE id = NEW.manifest_id AND frozen_at IS NOT NULL) THEN
        RAISE EXCEPTION 'manifest % is frozen and takes no new samples', NEW.manifest_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER manifest_frozen BEFORE UPDATE OR DELETE ON review_manifest
    FOR EACH ROW EXECUTE FUNCTION studio_refuse_sealed_change();
CREATE TRIGGER manifestsample_frozen BEFORE UPDATE OR DELETE ON review_manifestsample
    FOR EACH ROW EXECUTE FUNCTION studio_refuse_row_change();
CREATE TRIGGER manifestsample_no_late_insert BEFORE INSERT ON review_manifestsample
    FOR EACH ROW EXECUTE FUNCTION review_manifestsample_refuse_late_insert();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS manifestsample_no_late_insert ON review_manifestsample;
DROP TRIGGER IF EXISTS manifestsample_frozen ON review_manifestsample;
DROP TRIGGER IF EXISTS manifest_frozen ON review_manifest;
DROP FUNCTION IF EXISTS review_manifestsample_refuse_late_insert();
"""


class Migration(migrations.Migration):
    dependencies = [("review", "0001_initial"), ("annotation", "0004_release_frozen_rules")]

    operations = [PostgresOnly(FORWARD, BACKWARD)]
