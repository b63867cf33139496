"""Errors the client raises."""
from __future__ import annotations

import re

import grpc


class StrataError(Exception):
    """A call the server refused or that failed on the way.

    `code` is the gRPC status code name ("INVALID_ARGUMENT", "NOT_FOUND", ...);
    the message is the server's, which says what was wrong and what to do.
    """

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @classmethod
    def from_rpc(cls, error: grpc.RpcError) -> "StrataError":
        return cls(error.code().name, error.details() or "")


# Statuses after which sending the same write again can succeed: the server is
# away or busy, or ended the call while stopping (CANCELLED) or in time
# (DEADLINE_EXCEEDED), when it may or may not have been applied. Writes are
# safe to repeat: the same record with the same version is a no-op.
RETRYABLE_WRITE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.RESOURCE_EXHAUSTED,
                             grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED})

# How gRPC reports a call whose HTTP/2 stream the connection reset (a restarting server closes
# its connections with the calls still on the way): INTERNAL, with this text. No answer came,
# so sending the write again is as safe as after UNAVAILABLE; the server's own INTERNAL is not.
_STREAM_RESET = re.compile(r"^Received RST_STREAM with (error )?code \d+")


def is_retryable_write(error: grpc.RpcError) -> bool:
    """Whether sending the same write again after `error` can succeed."""
    if error.code() in RETRYABLE_WRITE:
        return True
    return error.code() == grpc.StatusCode.INTERNAL and bool(_STREAM_RESET.match(error.details() or ""))
