"""What a file that is not the expected kind is, from its first bytes: so that an error can
say "this is Paddle 3's PIR JSON program" rather than "Wire format was corrupt"."""

from __future__ import annotations

# Paddle's JSON writer orders keys alphabetically, so a PIR program opens with base_code.
_PIR_KEY = b'"base_code"'


def is_pir_json(data: bytes) -> bool:
    """Whether the bytes open like Paddle 3's PIR program (model.json)."""
    head = data[:256].lstrip()
    return head[:1] == b"{" and _PIR_KEY in head


def foreign_program_note(data: bytes) -> str:
    """A sentence (with a leading "; ") saying what program bytes are when they are not a
    ProgramDesc, or "" when there is nothing more to say."""
    if is_pir_json(data):
        return ("; it is a Paddle 3 PIR program (JSON, as paddle.jit.save writes model.json): "
                "read it as a Paddle model (`--format paddle`, "
                "paddle_ir.io.load_inference_model)")
    if data.lstrip()[:1] in (b"{", b"["):
        return "; it is a JSON document, not a protobuf ProgramDesc"
    return ""
