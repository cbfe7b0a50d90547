"""Rules only PostgreSQL can hold: no two active steps of one video overlap (an exclusion
constraint over half-open int8range [start_us, end_us)), and annotation rows are never deleted
(a trigger). On SQLite the services enforce both; these operations do nothing there."""

from django.db import migrations

from studio.migration_ops import PostgresOnly


FORWARD = """
CREATE EXTENSION IF NOT EXISTS btree_gist;
ALTER TABLE annotation_microstep
    ADD CONSTRAINT step_no_overlap_in_video
    EXCLUDE USING gist (video_id WITH =, int8range(start_us, end_us, '[)') WITH &&)
    WHERE (status = 'active');
CREATE FUNCTION studio_refuse_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rows of % are never deleted; retract instead', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE TRIGGER microstep_never_deleted BEFORE DELETE ON annotation_microstep
    FOR EACH ROW EXECUTE FUNCTION studio_refuse_delete();
CREATE TRIGGER steprevision_never_deleted BEFORE DELETE ON annotation_steprevision
    FOR EACH ROW EXECUTE FUNCTION studio_refuse_delete();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS steprevision_never_deleted ON annotation_steprevision;
DROP TRIGGER IF EXISTS microstep_never_deleted ON annotation_microstep;
DROP FUNCTION IF EXISTS studio_refuse_delete();
ALTER TABLE annotation_microstep DROP CONSTRAINT IF EXISTS step_no_overlap_in_video;
"""


class Migration(migrations.Migration):
    dependencies = [("annotation", "0001_initial")]

    operations = [PostgresOnly(FORWARD, BACKWARD)]
