"""PostgreSQL holds the release rules too: a frozen release row never changes, no release or
release step is ever deleted, release steps never change, and a frozen release takes no new steps.
The code refuses the same (annotation.models.releases); on SQLite only the code does."""

from django.db import migrations

from studio.migration_ops import PostgresOnly


FORWARD = """
CREATE FUNCTION studio_refuse_sealed_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'rows of % are never deleted', TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.frozen_at IS NOT NULL THEN
        RAISE EXCEPTION 'row % of % is frozen; make a new version instead', OLD.id, TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE FUNCTION studio_refuse_row_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'rows of % never change and are never deleted', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;
CREATE FUNCTION annotation_releasestep_refuse_late_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM annotation_release
               WHERE id = NEW.release_id AND frozen_at IS NOT NULL) THEN
        RAISE EXCEPTION 'release % is frozen and takes no new steps', NEW.release_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;
CREATE TRIGGER release_frozen BEFORE UPDATE OR DELETE ON annotation_release
    FOR EACH ROW EXECUTE FUNCTION studio_refuse_sealed_change();
CREATE TRIGGER releasestep_frozen BEFORE UPDATE OR DELETE ON annotation_releasestep
    FOR EACH ROW EXECUTE FUNCTION studio_refuse_row_change();
CREATE TRIGGER releasestep_no_late_insert BEFORE INSERT ON annotation_releasestep
    FOR EACH ROW EXECUTE FUNCTION annotation_releasestep_refuse_late_insert();
"""

BACKWARD = """
DROP TRIGGER IF EXISTS releasestep_no_late_insert ON annotation_releasestep;
DROP TRIGGER IF EXISTS releasestep_frozen ON annotation_releasestep;
DROP TRIGGER IF EXISTS release_frozen ON annotation_release;
DROP FUNCTION IF EXISTS annotation_releasestep_refuse_late_insert();
DROP FUNCTION IF EXISTS studio_refuse_row_change();
DROP FUNCTION IF EXISTS studio_refuse_sealed_change();
"""


class Migration(migrations.Migration):
    dependencies = [("annotation", "0003_releases")]

    operations = [PostgresOnly(FORWARD, BACKWARD)]
