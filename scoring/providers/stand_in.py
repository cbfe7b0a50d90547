"""The stand-in provider: an OpenAI-compatible HTTP server on 127.0.0.1 for tests and for trying
the flow without an account. It is not a model and says so: its model names start with
``stand-in``, its answers with ``stand-in``, and its justifications say they come from word
overlap.

Answers are deterministic functions of the request: a prediction is picked from a small
vocabulary by the SHA-256 of the attached media and evidence; the judges score by word overlap
between candidate and reference (Jaccard), inside the bands the packages define. It recognises our
packages' call data (the JSON document in the user message): ``reference`` + ``candidates``
(reference judge), ``candidates`` alone (video judge), ``items`` (blind rater), ``question``
(QA judge), ``turn`` + ``question`` (a turn of a QA dialogue), anything else (prediction).

It answers as OpenAI-compatible servers do where clients depend on it: a model whose name does
not start with ``stand-in`` gets 404 ``model_not_found``; ``"stream": true`` gets the reply as
server-sent events, chunks of the chat completions API (``chat.completion.chunk``, the content
in ``delta`` pieces, the finish reason in the last chunk, the usage in a chunk of its own when
``stream_options.include_usage`` asks for it, then ``data: [DONE]``); errors are never streamed.

Sound: an answer depends on every media part it got, images, videos and ``input_audio`` parts
alike (their bytes are hashed into its seed), so the same question with or without the sound
gets another answer. Per request it records which modalities arrived
(``scoring.providers.stand_in_media``): ``picture`` (``image_url`` or ``video_url`` parts),
``sound`` (``input_audio`` parts holding WAV or FLAC, or a video whose MP4 has a sound track; a
video by URL is fetched, as a model server would, when the URL is on this machine).

Scripted behaviour for tests, through its control API (JSON):
- ``POST /_stand_in/rules`` ``{"rules": [{"model": ..., "contains": ..., "modalities": [...],
  "times": N, "action": {...}}]}``: the next matching requests (model name equal, body
  containing the text, exactly this set of modalities arrived — ``[]`` for text only,
  ``["picture", "sound"]`` for both — ``times`` of them, -1 for all; every key but ``action``
  is optional) get ``action``: ``{"status": 429, "retry_after": 2}``,
  ``{"status": 500}``, ``{"status": 400, "code": "content_filter"}``, ``{"status": 400,
  "message": "..."}``, ``{"sleep_ms": 5000}`` (a timeout), ``{"content": "..."}`` (this reply
  text: malformed JSON, payloads), ``{"finish_reason": "length"}`` (a truncated reply),
  ``{"finish_reason": "content_filter"}``, ``{"echo_authorization": true}`` (a 401 quoting the
  key, as some providers do); ``latency_ms`` may be added to any of them;
- hostile answers, to test what is stored of a provider's text (``studio.text``):
  ``{"echo_key": "everywhere"}`` (a 200 whose model id, id, fingerprint and every free-text field
  of the reply carry the key it was sent, plain, JSON-escaped, URL-encoded and as base64 of
  ``Bearer <key>``, and a NUL), ``"reply"`` (the same without the NUL), ``"surrogate"`` (lone
  surrogates instead), ``"error"`` (an error body, status ``status`` or 401, carrying all of
  them), ``"raw_nul"`` (a 200 whose body holds a raw NUL byte: not JSON), ``"header_nul"`` (a
  header holding a NUL); every ``echo_key`` answer also echoes the key in its headers.
  ``{"reply_bytes": N}``: a 200 whose reply is about N bytes long;
- ``GET /_stand_in/stats``: requests answered, peak concurrent requests, and per request its
  arrival time, model, status, whether it carried an Authorization header and the modalities
  that arrived (``"modalities": ["picture", "sound"]``, ``[]`` for text only);
- ``GET /_stand_in/requests?last=N``: the last bodies received (at most 50 are kept);
- ``POST /_stand_in/reset``: counters, log and rules back to empty.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from scoring.providers.stand_in_media import modalities

STAND_IN_MODELS = ("stand-in-vision", "stand-in-judge")
MODEL_PREFIX = "stand-in"  # every name it answers to starts with it (a second stand-in: ...-b)
KEPT_BODIES = 50
STREAM_PIECE = 24  # characters of the reply per streamed chunk
_WORD = re.compile(r"[a-z0-9]+")
_VERBS = ("pick up", "put down", "open", "close", "wipe", "carry", "turn", "fill", "pour", "move")
_OBJECTS = (
    "the cup",
    "the lid",
    "the can",
    "the kettle",
    "the tap",
    "the bag",
    "the pot",
    "the cloth",
    "the box",
    "the bottle",
)


def _words(text) -> set[str]:
    return set(_WORD.findall(str(text or "").lower()))


def overlap(a, b) -> float:
    wa, wb = _words(a), _words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def _h(*parts) -> bytes:
    return hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()


# --- answers --------------------------------------------------------------------------------------


def _prediction(seed: bytes) -> dict:
    verb, obj = _VERBS[seed[0] % len(_VERBS)], _OBJECTS[seed[1] % len(_OBJECTS)]
    after = _VERBS[seed[2] % len(_VERBS)]
    return {
        "local_intent": f"stand-in guess: {verb} {obj}",
        "procedural_intent": f"stand-in guess: get {obj} ready for the task",
        "next_step": f"stand-in guess: {after} {obj}",
    }


def _next_plan(candidate: str, observed: str, plausible: list) -> tuple[int, str]:
    o = overlap(candidate, observed)
    p = max((overlap(candidate, alt) for alt in plausible or []), default=0.0)
    if o >= 0.5:
        return 70 + round(30 * (o - 0.5) / 0.5), "observed"
    if p >= 0.5:
        return 20 + round(49 * (p - 0.5) / 0.5), "plausible"
    if o > 0 or p > 0:
        return 1 + round(18 * max(o, p) / 0.5), "related"
    return 0, "none"


def _reference_scores(reference: dict, candidate: dict) -> dict:
    next_score, match = _next_plan(
        candidate.get("next_step"),
        reference.get("observed_next_step"),
        reference.get("plausible_next_steps"),
    )
    return {
        "local": round(100 * overlap(candidate.get("local_intent"), reference.get("local_intent"))),
        "procedural": round(
            100 * overlap(candidate.get("procedural_intent"), reference.get("procedural_intent"))
        ),
        "next": min(next_score, 100),
        "match": match,
    }


def _code(score: int) -> str:
    if score >= 90:
        return "correct"
    if score >= 70:
        return "minor_omission"
    if score >= 40:
        return "too_vague"
    return "unrelated"


def answer(data: dict, media_digest: str) -> dict:
    """The stand-in's reply object for the call data ``data``."""
    if isinstance(data.get("candidates"), list) and isinstance(data.get("reference"), dict):
        evaluations = []
        for c in data["candidates"]:
            s = _reference_scores(data["reference"], c)
            evaluations.append(
                {
                    "candidate_id": c.get("candidate_id", ""),
                    "local_intent_score": s["local"],
                    "procedural_intent_score": s["procedural"],
                    "next_plan_score": s["next"],
                    "next_plan_match_type": s["match"],
                    "brief_reason": "stand-in: scored by word overlap with the reference",
                }
            )
        return {"evaluations": evaluations}
    if isinstance(data.get("candidates"), list):
        evaluations = []
        for c in data["candidates"]:
            seed = _h(media_digest, c.get("local_intent"), c.get("next_step"))
            evaluations.append(
                {"candidate_id": c.get("candidate_id", "")}
                | {m: seed[i] % 5 for i, m in enumerate(("gf", "hic", "tpc", "npf"))}
            )
        return {"evaluations": evaluations}
    if isinstance(data.get("items"), list):
        evaluations = []
        for item in data["items"]:
            s = _reference_scores(item.get("reference") or {}, item.get("prediction") or {})
            evaluations.append(
                {
                    "blind_id": item.get("blind_id", ""),
                    "local_score_0_100": s["local"],
                    "procedural_score_0_100": s["procedural"],
                    "next_plan_score_0_100": s["next"],
                    "local_reason_code": _code(s["local"]),
                    "procedural_reason_code": _code(s["procedural"]),
                    "next_plan_reason_code": _code(s["next"]),
                    "brief_reason": "stand-in: scored by word overlap with the reference",
                }
            )
        return {"evaluations": evaluations}
    if "turn" in data and "question" in data:
        return _qa_answer(data, media_digest)
    if "question" in data:
        o = overlap(data.get("answer"), data.get("reference_answer"))
        correct = o >= 0.5
        score = (5 if o >= 0.8 else 4) if correct else min(3, round(o * 6))
        return {
            "correct": correct,
            "score": score,
            "justification": f"stand-in: word overlap {o:.2f} with the reference answer",
        }
    return _prediction(_h(media_digest, json.dumps(data, sort_keys=True)))


def _qa_answer(data: dict, media_digest: str) -> dict:
    """A turn of a QA dialogue: an option's letter for a multiple-choice turn, else a short
    sentence; both picked by the SHA-256 of the media and the question."""
    seed = _h(media_digest, json.dumps(data, sort_keys=True))
    options = data.get("options")
    if isinstance(options, dict) and options:
        return {"answer": sorted(options)[seed[0] % len(options)]}
    verb, thing = _VERBS[seed[0] % len(_VERBS)], _OBJECTS[seed[1] % len(_OBJECTS)]
    return {"answer": f"stand-in: they {verb} {thing} (turn {data.get('turn')})"}


def call_data(body: dict) -> tuple[dict, str]:
    """The JSON document of the last user message, and a digest of its media parts."""
    data: dict = {}
    digest = hashlib.sha256()
    for message in body.get("messages") or []:
        if message.get("role") != "user":
            continue
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            if part.get("type") == "text":
                found = _first_object(part.get("text") or "")
                if found is not None:
                    data = found
            elif part.get("type") in ("image_url", "video_url", "input_audio"):
                digest.update(json.dumps(part, sort_keys=True).encode())
    return data, digest.hexdigest()


def _first_object(text: str) -> dict | None:
    decoder = json.JSONDecoder()
    start = text.find("{")
    while start != -1:
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            start = text.find("{", start + 1)
            continue
        if isinstance(value, dict):
            return value
        start = text.find("{", start + 1)
    return None


# --- the server -----------------------------------------------------------------------------------


class StandIn:
    """Counters, log, rules: shared by the request threads."""

    def __init__(self, *, latency_ms: int = 0):
        self.latency_ms = latency_ms
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.reset()

    def reset(self) -> None:
        with self.lock:
            self.requests = 0
            self.in_flight = 0
            self.peak = 0
            self.log: list[dict] = []
            self.bodies: deque = deque(maxlen=KEPT_BODIES)
            self.rules: list[dict] = []

    def script(self, rules) -> None:
        """Scripted answers from now on, in place of any before (the control API's rules)."""
        if not isinstance(rules, list) or not all(isinstance(rule, dict) for rule in rules):
            raise ValueError("rules is not a list of objects")
        with self.lock:
            self.rules = [dict(rule) for rule in rules]

    def enter(self, body_text: str, body: dict, authorized: bool) -> tuple[dict | None, dict]:
        arrived = modalities(body)  # outside the lock: a video's bytes are read
        with self.lock:
            self.requests += 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            entry = {
                "n": self.requests,
                "t": round(time.monotonic() - self.started, 4),
                "model": body.get("model"),
                "authorization": authorized,
                "modalities": arrived,
            }
            self.log.append(entry)
            self.bodies.append(body_text)
            action = None
            for rule in self.rules:
                if rule.get("times", 1) == 0:
                    continue
                if rule.get("model") and rule["model"] != body.get("model"):
                    continue
                if rule.get("contains") and rule["contains"] not in body_text:
                    continue
                if "modalities" in rule and sorted(rule["modalities"] or []) != arrived:
                    continue
                if rule.get("times", 1) > 0:
                    rule["times"] = rule.get("times", 1) - 1
                action = rule.get("action", {})
                break
            return action, entry

    def leave(self, entry: dict, status: int) -> None:
        with self.lock:
            self.in_flight -= 1
            entry["status"] = status
            entry["end"] = round(time.monotonic() - self.started, 4)

    def stats(self) -> dict:
        with self.lock:
            return {
                "stand_in": True,
                "requests": self.requests,
                "in_flight": self.in_flight,
                "peak_concurrency": self.peak,
                "log": list(self.log),
            }


def _usage(content: str, prompt_bytes: int) -> dict:
    return {
        "prompt_tokens": prompt_bytes // 4,
        "completion_tokens": max(1, len(content) // 4),
        "total_tokens": prompt_bytes // 4 + max(1, len(content) // 4),
    }


def _completion(model: str, content: str, finish_reason: str, prompt_bytes: int) -> dict:
    return {
        "id": f"stand-in-{hashlib.sha256(content.encode()).hexdigest()[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": f"{model}+stand-in-build-1",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": finish_reason,
            }
        ],
        "usage": _usage(content, prompt_bytes),
    }


def completion_chunks(completion: dict, *, include_usage: bool = False) -> list[dict]:
    """``completion`` as the chunks a streamed reply sends: the role, the content in pieces,
    the finish reason (with an empty delta), and the usage alone when asked for."""
    choice = completion["choices"][0]
    content = choice["message"]["content"] or ""
    head = {k: completion[k] for k in ("id", "created", "model")} | {
        "object": "chat.completion.chunk"
    }

    def chunk(delta: dict, finish=None) -> dict:
        return head | {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    pieces = [content[i : i + STREAM_PIECE] for i in range(0, len(content), STREAM_PIECE)]
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": piece}) for piece in pieces]
    chunks.append(chunk({}, choice["finish_reason"]))
    if include_usage:
        chunks.append(head | {"choices": [], "usage": completion["usage"]})
    return chunks


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "IntentStudioStandIn/1"
    # TCP_NODELAY, and each response in one write (below): otherwise a small body sent after the
    # headers waits for the client's delayed ACK (Nagle's algorithm), about 40 ms per request.
    disable_nagle_algorithm = True
    state: StandIn

    def log_message(self, format, *args):  # quiet: the stats endpoint is the log
        return

    def _send(self, status: int, payload, headers: dict | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, str(value))
        self._headers_buffer.append(b"\r\n")
        self._headers_buffer.append(data)
        self.flush_headers()  # headers and body in one send

    def _stream(self, chunks: list[dict]) -> None:
        """Server-sent events, one ``data:`` event per chunk and ``data: [DONE]``, sent with
        chunked transfer encoding (the connection stays open for the next request)."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        events = [f"data: {json.dumps(c)}\n\n".encode() for c in chunks]
        for event in [*events, b"data: [DONE]\n\n"]:
            self.wfile.write(f"{len(event):x}\r\n".encode() + event + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        url = urlsplit(self.path)
        if url.path == "/_stand_in/stats":
            return self._send(200, self.state.stats())
        if url.path == "/_stand_in/requests":
            last = int(parse_qs(url.query).get("last", ["10"])[0])
            with self.state.lock:
                bodies = list(self.state.bodies)[-last:]
            return self._send(200, {"bodies": bodies})
        if url.path.rstrip("/") in ("/v1/models", "/models"):
            return self._send(
                200,
                {"object": "list", "data": [{"id": m, "object": "model"} for m in STAND_IN_MODELS]},
            )
        return self._send(404, {"error": {"message": "not found", "type": "not_found"}})

    def do_POST(self):
        url = urlsplit(self.path)
        raw = self._body()
        if url.path == "/_stand_in/rules":
            rules = json.loads(raw or b"{}").get("rules", [])
            try:
                self.state.script(rules)
            except ValueError as exc:
                return self._send(400, {"error": {"message": str(exc)}})
            return self._send(200, {"rules": len(rules)})
        if url.path == "/_stand_in/reset":
            self.state.reset()
            return self._send(200, {"reset": True})
        if url.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            return self._send(404, {"error": {"message": "not found", "type": "not_found"}})
        text = raw.decode("utf-8", "replace")
        try:
            body = json.loads(text)
            if not isinstance(body, dict):
                raise ValueError("not an object")
        except ValueError:
            error = {"message": "body is not a JSON object", "type": "invalid_request_error"}
            return self._send(400, {"error": error})
        action, entry = self.state.enter(text, body, "Authorization" in self.headers)
        status = 500  # if no answer could be made
        try:
            status, payload, headers = self._complete(body, action or {}, len(raw))
        finally:
            # Out of flight before the answer is written: a client that got it may send its
            # next request at once, and must not find this one still counted.
            self.state.leave(entry, status)
        if status == 200 and body.get("stream") is True:
            options = body.get("stream_options") or {}
            include_usage = isinstance(options, dict) and options.get("include_usage") is True
            return self._stream(completion_chunks(payload, include_usage=include_usage))
        self._send(status, payload, headers)

    def _complete(self, body: dict, action: dict, size: int) -> tuple[int, dict, dict | None]:
        """The answer to a call: (status, JSON payload, extra headers)."""
        latency = action.get("latency_ms", self.state.latency_ms)
        if action.get("sleep_ms"):
            latency = action["sleep_ms"]
        if latency:
            time.sleep(latency / 1000)
        model = str(body.get("model") or "")
        if not model.startswith(MODEL_PREFIX):
            error = {
                "message": f"The model '{model}' does not exist here: the stand-in provider "
                f"answers to model names starting with '{MODEL_PREFIX}'.",
                "type": "invalid_request_error",
                "param": "model",
                "code": "model_not_found",
            }
            return 404, {"error": error}, None
        stream = body.get("stream", False)
        if stream not in (True, False, None):
            error = {
                "message": "'stream' must be true or false.",
                "type": "invalid_request_error",
                "param": "stream",
                "code": None,
            }
            return 400, {"error": error}, None
        if action.get("echo_key"):
            return _hostile(action, self.headers.get("Authorization", ""), body, model, size)
        if action.get("reply_bytes"):
            content = json.dumps({"local_intent": "x" * int(action["reply_bytes"])})
            return 200, _completion(model, content, "stop", size), None
        if action.get("echo_authorization"):
            quoted = self.headers.get("Authorization", "")
            message = f"Incorrect API key provided: {quoted}"
            error = {"message": message, "type": "invalid_request_error", "code": "invalid_api_key"}
            return 401, {"error": error}, None
        if action.get("status", 200) != 200:
            status = int(action["status"])
            error = {
                "message": action.get("message", f"stand-in scripted {status}"),
                "type": action.get("type", "stand_in_scripted"),
                "code": action.get("code"),
            }
            headers = {"Retry-After": action["retry_after"]} if "retry_after" in action else None
            return status, {"error": error}, headers
        if "content" in action:
            content = action["content"]
            if not isinstance(content, str):
                content = json.dumps(content)
        else:
            data, digest = call_data(body)
            content = json.dumps(answer(data, digest))
        finish = action.get("finish_reason", "stop")
        if finish == "length":
            content = content[: max(1, len(content) // 2)]
        return 200, _completion(model, content, finish, size), None


# Free-text fields of the replies: the ones a hostile answer fills with the key.
_FREE_TEXT = {"local_intent", "procedural_intent", "next_step", "brief_reason", "justification"}
_JSON_KEY = "@@json-escaped-key@@"  # where the JSON-escaped key goes, once the JSON is written


def _hostile(action: dict, authorization: str, body: dict, model: str, size: int):
    """An answer that carries the key it was sent (and NUL or lone surrogates) in every field it
    has: (status, body bytes, headers)."""
    key = authorization.removeprefix("Bearer ").strip()
    url = "".join(f"%{ord(c):02X}" for c in key)
    b64 = base64.b64encode(authorization.encode()).decode()
    mode = action["echo_key"]
    bad = {"everywhere": "\x00", "surrogate": "\ud800", "error": "\x00"}.get(mode, "")
    echo = f"{key} {_JSON_KEY} {url} {b64}{bad}"
    headers = {"X-Echo-Authorization": authorization, "X-Echo-Key-Base64": b64}
    if mode == "header_nul":
        headers["X-Echo-Nul"] = f"{key}\x00"
    if mode == "error":
        error = {"message": f"bad key: {echo}", "type": "invalid_request_error", "code": echo}
        return int(action.get("status", 401)), _with_key({"error": error}, key), headers
    if mode == "raw_nul":
        return 200, b'{"model": "' + key.encode() + b'\x00", "choices": []}', headers
    data, digest = call_data(body)
    reply = _fill(answer(data, digest), echo)
    content = json.dumps(reply).replace(json.dumps(_JSON_KEY)[1:-1], _escaped(key))
    completion = _completion(model, content, "stop", size)
    completion |= {"model": echo, "id": echo, "system_fingerprint": echo}
    return 200, _with_key(completion, key), headers


def _fill(value, echo: str):
    if isinstance(value, dict):
        return {k: f"{v} {echo}" if k in _FREE_TEXT else _fill(v, echo) for k, v in value.items()}
    if isinstance(value, list):
        return [_fill(v, echo) for v in value]
    return value


def _escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def _with_key(payload: dict, key: str) -> bytes:
    """``payload`` as JSON with the JSON-escaped key where the marker is."""
    return json.dumps(payload).replace(_JSON_KEY, _escaped(key)).encode()


class StandInServer(ThreadingHTTPServer):
    daemon_threads = True
    # Read when the socket starts listening: dozens of clients connect at once.
    request_queue_size = 512


def make_server(
    host: str = "127.0.0.1", port: int = 0, *, latency_ms: int = 0
) -> ThreadingHTTPServer:
    """A stand-in server bound to (host, port); ``port=0`` picks a free one."""
    state = StandIn(latency_ms=latency_ms)
    handler = type("StandInHandler", (_Handler,), {"state": state})
    server = StandInServer((host, port), handler)
    server.state = state
    return server
