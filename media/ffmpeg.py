"""The one way this project runs ffmpeg.

Every call goes through here so the safety rules hold everywhere:

- argv lists only, never a shell, so no file name is ever parsed as shell syntax;
- every input is opened as ``file:<absolute path>`` with ``-protocol_whitelist file``: a name such
  as ``http:x`` or ``-i`` cannot switch protocol or become an option, and nothing inside a file
  (an HLS playlist, a concat list, an MP4 data reference) can make ffmpeg open a network address;
- inputs are opened with a pinned demuxer (``-f <name>``) taken from an allow-list, decided from
  the file's own bytes before ffmpeg sees it (see ``media.probe``), plus a matching
  ``-format_whitelist``; playlist and concat demuxers can therefore never run;
- ``-probesize``/``-analyzeduration`` bound what a hostile header can make ffmpeg read;
- a timeout (``FFMPEG_TIMEOUT_SECONDS``) kills a runaway process;
- ffmpeg dies with the process that started it (``studio.processes.die_with_parent``), so a
  SIGKILLed worker leaves no ffmpeg writing on under a re-parented pid;
- a failure raises :class:`FFmpegError` carrying the tail of stderr, which is where ffmpeg says why.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path

from django.conf import settings

from studio.processes import die_with_parent

# Demuxers we accept. Uploads can only ever be given the first three (media.probe sniffs the bytes);
# png_pipe, wav and flac read back the frames and sound this project renders itself, for
# verification.
ALLOWED_DEMUXERS = ("mov", "matroska", "avi", "png_pipe", "wav", "flac")
FORMAT_WHITELIST = "mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,png_pipe,wav,flac"

PROBESIZE_BYTES = 20_000_000
ANALYZEDURATION_US = 20_000_000
STDERR_TAIL_CHARS = 2000


class FFmpegError(RuntimeError):
    """ffmpeg failed or timed out; ``stderr_tail`` holds its last words."""

    def __init__(
        self,
        message: str,
        *,
        stderr_tail: str = "",
        returncode: int | None = None,
        log: bytes = b"",
    ):
        self.stderr_tail = stderr_tail
        self.returncode = returncode
        self.log = log  # all of stderr, where the caller waited for all of it (``finish``)
        detail = f"\n--- ffmpeg stderr (tail) ---\n{stderr_tail}" if stderr_tail else ""
        super().__init__(f"{message}{detail}")


def ffmpeg_binary() -> str:
    if settings.FFMPEG_BINARY:
        return settings.FFMPEG_BINARY
    import imageio_ffmpeg

    return imageio_ffmpeg.get_ffmpeg_exe()


def file_url(path: str | os.PathLike) -> str:
    """``file:`` + absolute path: the only way a path reaches ffmpeg's command line."""
    return "file:" + str(Path(path).resolve())


def input_args(
    path: str | os.PathLike, *, demuxer: str, seek_seconds: float | None = None
) -> list[str]:
    """Arguments that open one local file with a pinned, allow-listed demuxer."""
    if demuxer not in ALLOWED_DEMUXERS:
        raise ValueError(f"demuxer {demuxer!r} is not in the allow-list {ALLOWED_DEMUXERS}")
    args = [
        "-protocol_whitelist", "file",
        "-format_whitelist", FORMAT_WHITELIST,
        "-probesize", str(PROBESIZE_BYTES),
        "-analyzeduration", str(ANALYZEDURATION_US),
    ]  # fmt: skip
    if demuxer == "mov":
        # MP4 data references can point at other files; never follow them.
        args += ["-enable_drefs", "0"]
    if seek_seconds is not None:
        args += ["-ss", f"{seek_seconds:.6f}"]
    return [*args, "-f", demuxer, "-i", file_url(path)]


def base_args(loglevel: str = "error") -> list[str]:
    return [ffmpeg_binary(), "-hide_banner", "-nostdin", "-nostats", "-loglevel", loglevel]


def _tail(stderr: bytes | str | None) -> str:
    if not stderr:
        return ""
    text = stderr.decode("utf-8", "replace") if isinstance(stderr, bytes) else stderr
    return text[-STDERR_TAIL_CHARS:].strip()


def run_ffmpeg(
    args: Sequence[str],
    *,
    loglevel: str = "error",
    timeout: float | None = None,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess:
    """Run ffmpeg with ``args`` (everything after the common flags); returns the process result.

    stdout and stderr are captured (bytes). Raises FFmpegError on a non-zero exit or timeout.
    """
    argv = [*base_args(loglevel), *args]
    limit = timeout if timeout is not None else settings.FFMPEG_TIMEOUT_SECONDS
    try:
        result = subprocess.run(
            argv,
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=limit,
            check=False,
            preexec_fn=die_with_parent(),
        )
    except subprocess.TimeoutExpired as exc:
        raise FFmpegError(
            f"ffmpeg did not finish within {limit} s and was stopped", stderr_tail=_tail(exc.stderr)
        ) from None
    if result.returncode != 0:
        raise FFmpegError(
            f"ffmpeg exited with code {result.returncode}",
            stderr_tail=_tail(result.stderr),
            returncode=result.returncode,
        )
    return result


def popen_ffmpeg(
    args: Sequence[str], *, loglevel: str = "error", stdin=None, stdout=None
) -> subprocess.Popen:
    """Start ffmpeg for streaming (raw frames in or out). The caller must call :func:`finish`."""
    return subprocess.Popen(
        [*base_args(loglevel), *args],
        stdin=stdin if stdin is not None else subprocess.DEVNULL,
        stdout=stdout if stdout is not None else subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=die_with_parent(),
    )


def finish(proc: subprocess.Popen, *, timeout: float | None = None) -> bytes:
    """Wait for a streaming ffmpeg, raising FFmpegError with its stderr tail if it failed;
    returns its stderr (its log)."""
    limit = timeout if timeout is not None else settings.FFMPEG_TIMEOUT_SECONDS
    if proc.stdin is not None and proc.stdin.closed:
        proc.stdin = None  # communicate() would try to flush it
    if proc.stdout is not None and proc.stdout.closed:
        proc.stdout = None
    try:
        _, stderr = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, stderr = proc.communicate()
        raise FFmpegError(
            f"ffmpeg did not finish within {limit} s and was stopped",
            stderr_tail=_tail(stderr),
            log=stderr or b"",
        ) from None
    if proc.returncode != 0:
        raise FFmpegError(
            f"ffmpeg exited with code {proc.returncode}",
            stderr_tail=_tail(stderr),
            returncode=proc.returncode,
            log=stderr or b"",
        )
    return stderr or b""


def stream_ffmpeg_lines(
    args: Sequence[str],
    *,
    loglevel: str = "error",
    timeout: float | None = None,
    from_stderr: bool = False,
) -> Iterator[bytes]:
    """Run ffmpeg and yield its stdout (or, with ``from_stderr``, its log) line by line, as it
    writes them.

    For outputs too long to hold (one line per packet or frame of a long file): the caller keeps
    what it needs and memory stays flat. When stdout is read, stderr is drained by a thread
    (keeping only its tail), so a chatty ffmpeg cannot block on a full pipe. Closing the
    generator early (``close()``) kills ffmpeg. A non-zero exit or the timeout raises FFmpegError
    with the stderr tail, after the last line.
    """
    limit = timeout if timeout is not None else settings.FFMPEG_TIMEOUT_SECONDS
    proc = popen_ffmpeg(
        args, loglevel=loglevel, stdout=subprocess.DEVNULL if from_stderr else subprocess.PIPE
    )
    tail: deque[bytes] = deque(maxlen=40 if from_stderr else 4)
    timed_out = threading.Event()

    def drain() -> None:
        for chunk in iter(lambda: proc.stderr.read(STDERR_TAIL_CHARS), b""):
            tail.append(chunk)

    def stop() -> None:
        timed_out.set()
        proc.kill()

    drainer = None
    if not from_stderr:
        drainer = threading.Thread(target=drain, name="ffmpeg-stderr", daemon=True)
        drainer.start()
    timer = threading.Timer(limit, stop)
    timer.daemon = True
    timer.start()
    try:
        if from_stderr:
            for line in proc.stderr:
                tail.append(line)
                yield line
        else:
            yield from proc.stdout
        proc.wait()
    finally:
        timer.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if drainer is not None:
            drainer.join(timeout=5)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    stderr_tail = _tail(b"".join(tail))
    if timed_out.is_set():
        raise FFmpegError(
            f"ffmpeg did not finish within {limit} s and was stopped", stderr_tail=stderr_tail
        )
    if proc.returncode != 0:
        raise FFmpegError(
            f"ffmpeg exited with code {proc.returncode}",
            stderr_tail=stderr_tail,
            returncode=proc.returncode,
        )
