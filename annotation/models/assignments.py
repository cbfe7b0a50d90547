from django.conf import settings
from django.db import models


class VideoAssignment(models.Model):
    """Gives one annotator one source video to segment and label."""

    video = models.ForeignKey("media.SourceVideo", on_delete=models.PROTECT, related_name="+")
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="video_assignments"
    )
    assigned_at = models.DateTimeField(auto_now_add=True)
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["video_id", "annotator_id"]
        constraints = [
            models.UniqueConstraint(fields=["video", "annotator"], name="assignment_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.video} → {self.annotator}"
