"""Migration operations shared by the apps."""

from django.db import migrations


class PostgresOnly(migrations.RunSQL):
    """SQL for rules only PostgreSQL can hold (exclusion constraints, triggers). On SQLite it does
    nothing: there the services and model guards enforce the same rules."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
