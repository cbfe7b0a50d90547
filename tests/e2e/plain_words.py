"""What a person must never have to read on a page: a raw code of the product's vocabulary
(studio/vocabulary.py) where its label belongs, a microsecond count, a timestamp with
microseconds, a UUID.

``visible_text(page)`` collects what Chromium renders (``innerText``: hidden elements, closed
``<details>`` and ``<script>`` are left out) and every visible leaf text on its own (a table
cell, a list item); ``problems(...)`` names each finding.

A code with an underscore (``next_not_immediate``) is found anywhere in the text, unless it is
part of a longer name (``demo-evidence.scene_only.vlm`` names a run). A one-word code (``valid``,
``finished``, ``C7``) reads like a word in a sentence, so it is found where it stands alone
(when its label differs from it): a leaf text that is the code, one item of a list of codes
(``early, official``), or a closing parenthesis (``N 4 (related)``).
"""

from __future__ import annotations

import re

UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
MICROSECONDS = re.compile(r"\d\s*µs\b|\b[a-z]+_us\b")
TIME_WITH_MICROSECONDS = re.compile(r"\d\d:\d\d:\d\d[.,]\d{6}")
SEPARATORS = re.compile(r"\s*[,;·|]\s*")
TRAILING_PARENTHESIS = re.compile(r"\(([^()]+)\)$")
# Leaf texts that hold a one-word code as an ordinary word of a label.
ORDINARY_PHRASES = {
    "Next step (observed)",  # the workspace's field: the next step the video shows
    "Krippendorff \u03b1 (interval)",  # alpha's interval level
}

# Every visible leaf text: elements with no element children, plus text nodes that sit beside
# elements (a "C7" after a <br>), each trimmed; hidden ones (no layout box) left out, and the
# words after a <kbd> (a key hint: "v valid · i invalid" names keys, not stored values).
LEAVES_JS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    if (!text) continue;
    const el = node.parentElement;
    if (!el || el.closest('script, style, template, [hidden], details:not([open]) > :not(summary)'))
      continue;
    if (!el.getClientRects().length) continue;
    const before = node.previousSibling;
    if (before && before.nodeName === 'KBD') continue;
    out.push(text);
  }
  return out;
}"""


def visible_text(page) -> tuple[str, list[str]]:
    return page.inner_text("body"), page.evaluate(LEAVES_JS)


def _vocabulary_codes() -> tuple[dict[str, str], dict[str, str]]:
    """Codes with an underscore, and one-word codes whose label differs: {code: vocabulary}."""
    from studio.vocabulary import vocabularies

    snake, words = {}, {}
    for name, vocab in vocabularies().items():
        for code, text in vocab.labels.items():
            if "_" in code:
                snake.setdefault(code, name)
            elif code != text:
                words.setdefault(code, name)
    return snake, words


def problems(text: str, leaves: list[str]) -> list[str]:
    snake, words = _vocabulary_codes()
    found = []
    for match in UUID.finditer(text):
        found.append(f"a UUID: {match[0]}")
    for match in MICROSECONDS.finditer(text):
        found.append(f"microseconds: {text[max(0, match.start() - 30) : match.end() + 5]!r}")
    for match in TIME_WITH_MICROSECONDS.finditer(text):
        found.append(f"a time with microseconds: {match[0]}")
    for code, vocab in snake.items():
        pattern = rf"(?<![\w.\-/]){re.escape(code)}(?![\w\-/]|\.\w)"
        for match in re.finditer(pattern, text):
            context = text[max(0, match.start() - 30) : match.end() + 30]
            found.append(f"raw {vocab} code {code!r}: {context!r}")
    for leaf in leaves:
        if leaf in ORDINARY_PHRASES:
            continue
        for part in SEPARATORS.split(leaf):
            inner = TRAILING_PARENTHESIS.search(part)
            for candidate in (part, inner[1] if inner else None):
                if candidate in words:
                    found.append(f"raw {words[candidate]} code {candidate!r} in {leaf[:80]!r}")
    return sorted(set(found))
