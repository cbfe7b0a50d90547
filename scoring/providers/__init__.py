"""The OpenAI-compatible client: endpoint addresses, the API key, limits across processes,
retries, outcome classification and the media of a request. The stand-in provider for tests and
demos is ``scoring.providers.stand_in``."""

from scoring.providers.addresses import AddressRefused, base_url_check
from scoring.providers.client import (
    Attempt,
    CallResult,
    Cancelled,
    EndpointConfig,
    backoff_seconds,
    chat_call,
    retry_after_seconds,
)
from scoring.providers.media import (
    Body,
    MediaPayload,
    audio_payload,
    body_bytes,
    body_pieces,
    file_sha256,
    files_payload,
    frames_payload,
    video_base64_payload,
    video_url_payload,
)
from scoring.providers.outcomes import Verdict, classify_completion, classify_status
from scoring.providers.secrets import MissingKey, api_key

__all__ = [
    "AddressRefused",
    "Attempt",
    "Body",
    "CallResult",
    "Cancelled",
    "EndpointConfig",
    "MediaPayload",
    "MissingKey",
    "Verdict",
    "api_key",
    "audio_payload",
    "backoff_seconds",
    "base_url_check",
    "body_bytes",
    "body_pieces",
    "chat_call",
    "classify_completion",
    "classify_status",
    "file_sha256",
    "files_payload",
    "frames_payload",
    "retry_after_seconds",
    "video_base64_payload",
    "video_url_payload",
]
