"""The SHA-256 of media files as they were when hashed, shared by every process."""

from __future__ import annotations

from django.db import models


class FileDigest(models.Model):
    """One file's SHA-256 together with the file's identity at the time (inode, size, mtime).

    A run hashes the media it will send when its items are created (the cache keys need it); the
    workers that then send them find the digests here instead of hashing every file again. A row
    is used only while the file's current ``stat`` matches it exactly: a file that changed, or
    was replaced, is hashed again and its row updated."""

    path = models.CharField(max_length=1000, unique=True, help_text="Absolute file path")
    inode = models.BigIntegerField()
    size = models.BigIntegerField()
    mtime_ns = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    recorded_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "file digest"

    def __str__(self) -> str:
        return f"{self.path} {self.sha256[:12]}"
