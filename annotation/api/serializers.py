"""Input validation and the documented output shapes of the workspace API.

Input serializers check types and shapes only; the time rules (≤ 10 s, start < cutoff ≤ outcome
≤ end, no overlap) belong to ``annotation.services.validate_times``, the one authority.
"""

from __future__ import annotations

from rest_framework import serializers

from studio.text import text_problem

# --- Inputs ------------------------------------------------------------------------------------


class TextField(serializers.CharField):
    """Text only: a number or a boolean is refused instead of being turned into text, and text
    the studio does not store (NUL, a lone surrogate: ``studio.text``, the one rule for text
    from outside) is refused with the reason."""

    default_error_messages = {"invalid": "Must be text.", "not_text": "This text {reason}."}

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("max_length", 5000)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        problem = text_problem(data)  # the length is max_length's
        if problem is not None:
            self.fail("not_text", reason=problem)
        return super().to_internal_value(data)


class _Labels(serializers.Serializer):
    local_intent = TextField(required=False)
    procedural_intent = TextField(required=False)
    next_step = TextField(required=False)
    plausible_next_steps = serializers.ListField(
        child=TextField(max_length=1000),
        required=False,
        max_length=50,
    )
    tags = serializers.ListField(
        child=TextField(max_length=81),
        required=False,
        max_length=20,
        help_text="Breakdown tags: labels or key:value (docs/steps-jsonl.md).",
    )


class StepCreateInput(_Labels):
    uid = serializers.UUIDField(
        required=False,
        help_text="Chosen by the client so that a retried create returns the same step.",
    )
    start_us = serializers.IntegerField(min_value=0)
    cutoff_us = serializers.IntegerField(min_value=0)
    outcome_us = serializers.IntegerField(min_value=0)
    end_us = serializers.IntegerField(min_value=0)
    reason = TextField(required=False, max_length=2000)


class StepSaveInput(_Labels):
    # The view validates it whole, not partially, though the method is PATCH: the version is
    # required, the other fields are optional (studio.schema.StudioAutoSchema documents it so).
    whole_on_patch = True

    version = serializers.IntegerField(
        min_value=1, help_text="The version this save edits; a stale one gets 409."
    )
    reason = TextField(required=False, max_length=2000)
    start_us = serializers.IntegerField(required=False, min_value=0)
    cutoff_us = serializers.IntegerField(required=False, min_value=0)
    outcome_us = serializers.IntegerField(required=False, min_value=0)
    end_us = serializers.IntegerField(required=False, min_value=0)


class StepVersionInput(serializers.Serializer):
    version = serializers.IntegerField(min_value=1)
    reason = TextField(required=False, max_length=2000)


class StepSplitInput(StepVersionInput):
    at_us = serializers.IntegerField(
        min_value=0, help_text="Time of the first frame of the second part."
    )


class StepMergeInput(StepVersionInput):
    next_version = serializers.IntegerField(
        min_value=1, help_text="The version of the following step, which the merge retracts."
    )


# --- Outputs (documentation of payloads.py) ---------------------------------------------------


class ProblemOutput(serializers.Serializer):
    field = serializers.CharField()
    message = serializers.CharField()


class StepOutput(serializers.Serializer):
    id = serializers.IntegerField()
    uid = serializers.UUIDField()
    position = serializers.IntegerField()
    start_us = serializers.IntegerField()
    cutoff_us = serializers.IntegerField(help_text="First frame withheld from the observation.")
    outcome_us = serializers.IntegerField()
    end_us = serializers.IntegerField()
    local_intent = serializers.CharField()
    procedural_intent = serializers.CharField()
    next_step = serializers.CharField()
    plausible_next_steps = serializers.ListField(child=serializers.CharField())
    tags = serializers.ListField(child=serializers.CharField())
    status = serializers.ChoiceField(choices=["active", "retracted"])
    version = serializers.IntegerField()
    updated_at = serializers.DateTimeField()
    problems = ProblemOutput(many=True, help_text="What keeps the step from being complete.")


class VideoOutput(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    scene = serializers.CharField()
    duration_us = serializers.IntegerField()
    frame_count = serializers.IntegerField()
    fps_num = serializers.IntegerField()
    fps_den = serializers.IntegerField()
    is_vfr = serializers.BooleanField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    rotation = serializers.IntegerField()
    mime_type = serializers.CharField()
    origin_us = serializers.IntegerField(
        help_text="Where frame 0 sits on the file's own timeline (add it when seeking the file)."
    )
    has_file = serializers.BooleanField()


class WorkspaceOutput(serializers.Serializer):
    video = VideoOutput()
    steps = StepOutput(many=True, help_text="Active and retracted steps, by start time.")
    max_step_us = serializers.IntegerField()


class FrameTimesOutput(serializers.Serializer):
    count = serializers.IntegerField()
    frame_times_us = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Presentation time of every frame in µs, ascending; the first is 0.",
    )


class StepChangeOutput(serializers.Serializer):
    steps = StepOutput(many=True, help_text="Every step the action changed or created.")
    replayed = serializers.BooleanField(
        help_text="True when this exact request had already been applied (a retry)."
    )


class ErrorOutput(serializers.Serializer):
    detail = serializers.CharField()
    errors = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()), required=False
    )


class ConflictOutput(serializers.Serializer):
    detail = serializers.CharField()
    stored = StepOutput(help_text="The step as stored now, to show beside the client's version.")


class ChangeOutput(serializers.Serializer):
    field = serializers.CharField()
    name = serializers.CharField(help_text="The field's name on the pages (Start, Local intent…).")
    before = serializers.JSONField(allow_null=True)
    after = serializers.JSONField(allow_null=True)
    before_text = serializers.CharField(
        help_text="The value as pages show it: a time as 0:04.200 · last shown #125."
    )
    after_text = serializers.CharField(help_text="The same for the new value.")


class RevisionOutput(serializers.Serializer):
    version = serializers.IntegerField()
    action = serializers.CharField()
    action_name = serializers.CharField(help_text="The action as the pages name it (Edited…).")
    author = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField(
        help_text="ISO 8601 to the second, in the display time zone, with its offset."
    )
    created_at_text = serializers.CharField(
        help_text="The same moment as pages show it: to the second, in the person's time zone."
    )
    reason = serializers.CharField()
    changes = ChangeOutput(many=True)


class HistoryOutput(serializers.Serializer):
    step = StepOutput()
    title = serializers.CharField(help_text='How pages name the step: "Step 6 of tea.mp4".')
    revisions = RevisionOutput(many=True, help_text="Newest first.")


class PingOutput(serializers.Serializer):
    ok = serializers.BooleanField()


class PreviewOutput(serializers.Serializer):
    status = serializers.ChoiceField(choices=["pending", "rendering", "ready", "failed"])
    url = serializers.CharField(
        allow_null=True, help_text="Opaque, expiring URL of the clip once it is ready."
    )
    version = serializers.IntegerField(help_text="The step version whose times were rendered.")
    start_us = serializers.IntegerField()
    cutoff_us = serializers.IntegerField()
    first_frame = serializers.IntegerField(allow_null=True, help_text="Source frame index.")
    last_frame = serializers.IntegerField(
        allow_null=True, help_text="Source frame index: the last frame before the cutoff."
    )
    frame_count = serializers.IntegerField()
    boundary_fallback = serializers.BooleanField()
    error = serializers.CharField(allow_blank=True)
