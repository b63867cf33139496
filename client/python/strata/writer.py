"""Batched, pipelined writes with retries."""
from __future__ import annotations

import collections
import time as _time
from dataclasses import dataclass, field
from typing import Any, Deque, Dict, Iterable, List, Mapping, Optional, Sequence

import grpc

from strata.errors import StrataError, is_retryable_write
from strata.values import is_missing, measure_value, to_nanos
from strata.v1 import records_pb2, write_pb2

# WriteRecords takes Timestream's 100 records; BulkWriteRecords the same request with up to
# 10,000, and a request's fixed cost (the call, the server's group commit) was about half of
# the server's CPU per row at 100.
WRITE_RECORDS_LIMIT = 100
MAX_RECORDS_PER_REQUEST = 10_000


@dataclass
class Record:
    """One record. `measures` (name -> value) makes a MULTI record; `value`
    a scalar one. `time`: datetime, pandas.Timestamp, int nanoseconds or
    float seconds. `version` (>= 1) orders rewrites of the same point."""

    dimensions: Mapping[str, str]
    measure_name: str
    time: Any
    measures: Optional[Mapping[str, Any]] = None
    value: Any = None
    version: Optional[int] = None


@dataclass
class RejectedRecord:
    position: int  # the record's place in everything given to the Writer, from 0
    reason: str
    existing_version: Optional[int]
    record: Any


@dataclass
class WriteSummary:
    written: int = 0
    memory_store: int = 0
    magnetic_store: int = 0
    requests: int = 0
    retries: int = 0
    rejected: List[RejectedRecord] = field(default_factory=list)


# Exact Python types to (measure type, MeasureValue field): the hot path of _fill.
_FAST = {
    float: (records_pb2.MEASURE_VALUE_TYPE_DOUBLE, "double_value"),
    int: (records_pb2.MEASURE_VALUE_TYPE_BIGINT, "bigint_value"),
    str: (records_pb2.MEASURE_VALUE_TYPE_VARCHAR, "varchar_value"),
    bool: (records_pb2.MEASURE_VALUE_TYPE_BOOLEAN, "boolean_value"),
}


def _as_record(item: Any) -> Record:
    if isinstance(item, Record):
        return item
    if isinstance(item, Mapping):
        return Record(**item)
    raise TypeError(f"{item!r} is not a Record or a dict of its fields")


def _fill(out: records_pb2.Record, record: Record, common_dimensions: Mapping[str, str]) -> None:
    """Writes `record` into `out` (a record of the request, so nothing is copied)."""
    out.time = to_nanos(record.time)
    for name, value in record.dimensions.items():
        if name not in common_dimensions and not is_missing(value):
            out.dimensions.add(name=name, value=str(value))
    if record.version is not None:
        out.version = int(record.version)
    if record.measures is not None:
        out.measure_value_type = records_pb2.MEASURE_VALUE_TYPE_MULTI
        add = out.measure_values.add
        for name, value in record.measures.items():
            fast = _FAST.get(type(value))
            if fast is not None:  # the common types, without building a MeasureValue to copy
                if fast[1] == "double_value" and value != value:
                    continue  # NaN: no value
                measure = add(name=name, type=fast[0])
                setattr(measure.value, fast[1], value)
                continue
            if is_missing(value):
                continue
            kind, wire = measure_value(value)
            add(name=name, type=kind, value=wire)
    else:
        kind, wire = measure_value(record.value)
        out.measure_value_type = kind
        out.measure_value.CopyFrom(wire)


class Writer:
    """Writes records to one table in requests of `batch_size` records
    (1..10,000, 1,000 by default): BulkWriteRecords above 100, WriteRecords
    at 100 or fewer.

    Records that share dimensions (or a measure name) send them once, in the
    request's common_attributes. Up to `in_flight` requests are outstanding;
    UNAVAILABLE, RESOURCE_EXHAUSTED, CANCELLED or DEADLINE_EXCEEDED (a
    server that stopped or did not answer in time), and a stream the connection
    reset (INTERNAL "Received RST_STREAM ...") are retried with exponential backoff
    (`max_retries`, starting at `backoff` seconds): safe, since writing a
    record again with the same values and version changes nothing. Records
    the server rejects are reported in `summary.rejected` with their
    position; other failures raise StrataError. Use it as a context manager,
    or call flush()/close().
    """

    def __init__(self, client, database: str, table: str, *, batch_size: int = 1000,
                 in_flight: int = 4, max_retries: int = 8, backoff: float = 0.1):
        if not 1 <= batch_size <= MAX_RECORDS_PER_REQUEST:
            raise ValueError(f"batch_size must be 1..{MAX_RECORDS_PER_REQUEST}")
        self._client = client
        self._database = database
        self._table = table
        self._batch_size = batch_size
        self._in_flight = max(1, in_flight)
        self._max_retries = max_retries
        self._backoff = backoff
        self._batch: List[Record] = []
        self._positions: List[int] = []
        self._next_position = 0
        self._pending: Deque[tuple] = collections.deque()
        self.summary = WriteSummary()

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, exc_type, *rest: Any) -> None:
        if exc_type is None:
            self.close()

    def add(self, record: Record | Mapping[str, Any]) -> None:
        """Queues one record (a Record or a dict of its fields)."""
        self._batch.append(_as_record(record))
        self._positions.append(self._next_position)
        self._next_position += 1
        if len(self._batch) >= self._batch_size:
            self._send_batch()

    def add_all(self, records: Iterable[Record | Mapping[str, Any]]) -> None:
        for record in records:
            self.add(record)

    def add_dataframe(self, frame, *, time: str = "time", dimensions: Sequence[str] = (),
                      measure_name: Optional[str] = None, measure_name_column: Optional[str] = None,
                      measures: Optional[Sequence[str]] = None) -> None:
        """One MULTI record per row of a pandas DataFrame: `time` names the
        time column, `dimensions` the dimension columns, the measure name is
        fixed (`measure_name`) or a column (`measure_name_column`), and the
        measures are `measures` or every other column. NaN / None cells are
        left out of their record."""
        if (measure_name is None) == (measure_name_column is None):
            raise ValueError("give measure_name or measure_name_column")
        taken = {time, *dimensions} | ({measure_name_column} if measure_name_column else set())
        columns = list(frame.columns)
        measure_columns = list(measures) if measures is not None else [c for c in columns if c not in taken]
        # Column by column into Python values (numpy scalars become int / float / bool).
        for cells in zip(*(frame[c].tolist() for c in columns)):
            values = dict(zip(columns, cells))
            self.add(Record(
                dimensions={d: values[d] for d in dimensions},
                measure_name=measure_name if measure_name is not None else str(values[measure_name_column]),
                time=values[time],
                measures={m: values[m] for m in measure_columns}))

    def flush(self) -> WriteSummary:
        """Sends what is queued and waits for every request."""
        if self._batch:
            self._send_batch()
        while self._pending:
            self._finish_oldest()
        return self.summary

    def close(self) -> WriteSummary:
        return self.flush()

    # ------------------------------------------------------------------ internals

    def _request(self, batch: List[Record]) -> write_pb2.WriteRecordsRequest:
        request = write_pb2.WriteRecordsRequest(database_name=self._database, table_name=self._table)
        common: Dict[str, str] = dict(batch[0].dimensions)
        for record in batch[1:]:
            common = {k: v for k, v in common.items() if record.dimensions.get(k) == v}
        common = {k: v for k, v in common.items() if not is_missing(v)}
        for name, value in common.items():
            request.common_attributes.dimensions.add(name=name, value=str(value))
        same_name = all(r.measure_name == batch[0].measure_name for r in batch)
        if same_name:
            request.common_attributes.measure_name = batch[0].measure_name
        request.common_attributes.time_unit = records_pb2.TIME_UNIT_NANOSECONDS
        for record in batch:
            wire = request.records.add()
            _fill(wire, record, common)
            if not same_name:
                wire.measure_name = record.measure_name
        return request

    def _send_batch(self) -> None:
        batch, positions = self._batch, self._positions
        self._batch, self._positions = [], []
        while len(self._pending) >= self._in_flight:
            self._finish_oldest()
        request = self._request(batch)
        self._pending.append((self._submit(request), request, batch, positions))

    def _submit(self, request: write_pb2.WriteRecordsRequest):
        self.summary.requests += 1
        bulk = len(request.records) > WRITE_RECORDS_LIMIT
        call = self._client._write.BulkWriteRecords if bulk else self._client._write.WriteRecords
        return call.future(
            request, metadata=self._client._metadata, timeout=self._client.timeout)

    def _finish_oldest(self) -> None:
        future, request, batch, positions = self._pending.popleft()
        delay = self._backoff
        for attempt in range(self._max_retries + 1):
            try:
                response = future.result()
                break
            except grpc.RpcError as error:
                if not is_retryable_write(error) or attempt == self._max_retries:
                    raise StrataError.from_rpc(error) from None
                self.summary.retries += 1
                _time.sleep(delay)
                delay = min(delay * 2, 5.0)
                future = self._submit(request)
        ingested = response.records_ingested
        self.summary.written += ingested.total
        self.summary.memory_store += ingested.memory_store
        self.summary.magnetic_store += ingested.magnetic_store
        for rejected in response.rejected_records:
            i = rejected.record_index
            self.summary.rejected.append(RejectedRecord(
                position=positions[i], reason=rejected.reason,
                existing_version=rejected.existing_version if rejected.HasField("existing_version") else None,
                record=batch[i]))
