"""Why an FBX file is refused, in the user's words: assimp's messages ("FBX-Tokenize (offset
0x3bc1) block offset is out of range") translated into what they mean for the person, with
the place in the file when there is one; assimp's own text stays in the error's details.
"""

from __future__ import annotations

import re

from app.scene.errors import SceneError

#: How a binary FBX file begins, and a text (ASCII) one.
BINARY_MAGIC = b"Kaydara FBX Binary"
TEXT_MAGIC = b"; FBX"

_OFFSET = re.compile(r"\(offset 0x([0-9a-fA-F]+)\)")
_LINE = re.compile(r"line (\d+), col (\d+)")
#: Reasons the binding itself gives (the reader crashed, assimp is missing): words already.
_OURS = ("the FBX reader", "reading FBX needs", "bone ")
#: assimp's words -> what they mean, for a binary file that stops making sense part way.
_DAMAGED = ("out of range", "out of bounds", "unexpected end of file", "negative")


def _beginning(head: bytes) -> str:
    """The first bytes of a file as a person would read them (text, or its bytes)."""
    head = head[:16]
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is not None and text.isprintable():
        return f"“{text.strip()}”"
    return " ".join(f"{b:02x}" for b in head[:8]) + " (bytes, not text)"


def refusal(raw: str, head: bytes) -> SceneError:
    """The error for an FBX file assimp could not read: ``raw`` is assimp's message, ``head``
    the file's first bytes. Its reason reads as the rest of a sentence ("... could not be
    opened: the file ends too early or is damaged"), its place is a byte or a line when
    assimp named one, its details are assimp's words."""
    if raw.startswith(_OURS):  # not assimp's words: ours already
        return SceneError(raw)
    details = f"assimp: {raw}"
    if not head:
        return SceneError("the file is empty", details=details)
    binary = head.startswith(BINARY_MAGIC) or BINARY_MAGIC.startswith(head)  # or cut inside it
    text = head.lstrip(b"\xef\xbb\xbf").lstrip().startswith(TEXT_MAGIC)
    if not binary and not text:
        return SceneError(
            "it is not an FBX file: an FBX file begins with “Kaydara FBX Binary” (or, as "
            f"text, “; FBX”), this one with {_beginning(head)}",
            details=details,
        )
    offset = _OFFSET.search(raw)
    line = _LINE.search(raw)
    place = (
        f"byte {int(offset.group(1), 16):,}"
        if offset
        else f"line {line.group(1)} column {line.group(2)}"
        if line
        else ""
    )
    if "no FBXHeaderExtension" in raw:
        return SceneError(
            "it has no FBX header (FBXHeaderExtension): it is cut short or not an FBX file",
            place,
            details=details,
        )
    there = " there" if place else ""
    if binary and (any(words in raw for words in _DAMAGED) or len(head) < len(BINARY_MAGIC)):
        return SceneError(
            f"the file ends too early or is damaged: its data stops making "
            f"sense{there} (an FBX file cut short by a download or a copy looks "
            "like this)",
            place,
            details=details,
        )
    if text and "unexpected" in raw:
        return SceneError(
            f"the FBX text is broken{there} (it ends too early, or was edited by hand)",
            place,
            details=details,
        )
    return SceneError(
        "assimp, the library that reads FBX, could not read it (its words are in the details)",
        place,
        details=details,
    )
