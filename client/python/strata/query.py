"""Query results: pages of rows as native Python values, streamed."""
from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

import grpc

from strata.errors import StrataError
from strata.values import TIMESTAMP_FORMS, from_column, from_datum
from strata.v1 import query_pb2

Row = Tuple[Any, ...]


class QueryResult:
    """A running query. Iterate it for rows, or `pages()` for lists of rows as
    the server sends them; `columns` and `query_id` are known at once;
    `statistics` once every page was read. `cancel()` stops it.
    """

    def __init__(self, responses: grpc.Call, cancel: Callable[[str], None],
                 timestamps: str = "datetime"):
        if timestamps not in TIMESTAMP_FORMS:
            raise ValueError(f"timestamps must be one of {TIMESTAMP_FORMS}")
        self._responses = responses
        self._cancel = cancel
        self._timestamps = timestamps
        self._pending: List[query_pb2.QueryResponse] = []
        self.statistics: Optional[query_pb2.QueryStatistics] = None
        first = self._next()  # the metadata comes first
        if first is None or not first.HasField("metadata"):
            raise StrataError("INTERNAL", "the query answered without its metadata")
        self.query_id: str = first.metadata.query_id
        self.columns: List[str] = [c.name for c in first.metadata.columns]
        self.column_types: List[str] = [
            query_pb2.ScalarType.Name(c.type.scalar_type) for c in first.metadata.columns]
        # None for an array, row or timeseries column (from_column).
        self._scalar_types = [c.type.scalar_type if c.type.WhichOneof("type") == "scalar_type"
                              else None for c in first.metadata.columns]

    def _next(self) -> Optional[query_pb2.QueryResponse]:
        try:
            return next(self._responses)
        except StopIteration:
            return None
        except grpc.RpcError as error:
            raise StrataError.from_rpc(error) from None

    def pages(self) -> Iterator[List[Row]]:
        """The result's pages, each a list of rows (tuples), as they arrive."""
        while True:
            message = self._next()
            if message is None:
                return
            if message.HasField("statistics"):
                self.statistics = message.statistics
            elif message.HasField("column_page"):
                page = message.column_page
                columns = [from_column(column, kind, page.row_count, self._timestamps)
                           for column, kind in zip(page.columns, self._scalar_types)]
                yield list(zip(*columns))
            elif message.HasField("page"):
                yield [tuple(from_datum(d, self._timestamps) for d in row.data)
                       for row in message.page.rows]

    def __iter__(self) -> Iterator[Row]:
        for page in self.pages():
            yield from page

    def all(self) -> List[Row]:
        """Every row, read to the end."""
        return list(self)

    def to_pandas(self):
        """The whole result as a pandas.DataFrame; TIMESTAMP columns are
        datetime64[ns, UTC] with nanoseconds kept. Needs pandas."""
        import pandas

        timestamps, self._timestamps = self._timestamps, "ns"
        try:
            rows = self.all()
        finally:
            self._timestamps = timestamps
        frame = pandas.DataFrame.from_records(rows, columns=self.columns)
        for name, kind in zip(self.columns, self.column_types):
            if kind == "SCALAR_TYPE_TIMESTAMP":
                frame[name] = pandas.to_datetime(frame[name], unit="ns", utc=True)
        return frame

    def cancel(self) -> None:
        """Asks the server to stop the query (CancelQuery) and stops reading."""
        self._cancel(self.query_id)
        self._responses.cancel()


def parameters_of(values: Optional[Sequence[Any] | dict]) -> List[query_pb2.QueryParameter]:
    """`?` placeholders take a sequence in order; `@name` ones a dict."""
    from strata.values import to_datum

    if values is None:
        return []
    if isinstance(values, dict):
        return [query_pb2.QueryParameter(name=str(k), value=to_datum(v)) for k, v in values.items()]
    return [query_pb2.QueryParameter(value=to_datum(v)) for v in values]
