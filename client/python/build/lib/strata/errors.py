"""Errors the client raises."""
from __future__ import annotations

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
