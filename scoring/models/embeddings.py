"""Sentence embeddings of baseline answers, kept so a report never embeds the same text twice
(scoring/similarity.py). A row belongs to one similarity version (the model file's SHA-256):
another model never reads it."""

from __future__ import annotations

from django.db import models


class TextEmbedding(models.Model):
    version = models.CharField(max_length=64, help_text="The similarity function's version")
    text_sha256 = models.CharField(max_length=64, help_text="SHA-256 of the normalised text")
    vector = models.BinaryField(help_text="float32 values, little-endian")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["version", "text_sha256"], name="textembedding_unique")
        ]

    def __str__(self) -> str:
        return f"{self.version[:12]}:{self.text_sha256[:12]}"
