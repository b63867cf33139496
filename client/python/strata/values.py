"""Conversions between Python values and the wire's typed values.

Writing: bool -> BOOLEAN, integers -> BIGINT, floats -> DOUBLE (NaN and None
mean "no value"), str -> VARCHAR, datetime / pandas.Timestamp -> TIMESTAMP.
Times: datetime (naive ones are UTC), pandas.Timestamp (nanoseconds kept),
int (nanoseconds since the epoch) or float (seconds, as time.time() gives).
Reading: BIGINT -> int, DOUBLE -> float, VARCHAR -> str, BOOLEAN -> bool,
NULL -> None, TIMESTAMP -> datetime (UTC, microseconds), int nanoseconds or
pandas.Timestamp (nanoseconds) as the caller asks.
"""
from __future__ import annotations

import datetime as _dt
import math
import numbers
from typing import Any, List, Optional

from strata.v1 import query_pb2, records_pb2

UTC = _dt.timezone.utc
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_DATE = _dt.date(1970, 1, 1)

MEASURE_TYPES = {
    "DOUBLE": records_pb2.MEASURE_VALUE_TYPE_DOUBLE,
    "BIGINT": records_pb2.MEASURE_VALUE_TYPE_BIGINT,
    "VARCHAR": records_pb2.MEASURE_VALUE_TYPE_VARCHAR,
    "BOOLEAN": records_pb2.MEASURE_VALUE_TYPE_BOOLEAN,
    "TIMESTAMP": records_pb2.MEASURE_VALUE_TYPE_TIMESTAMP,
}


def is_missing(value: Any) -> bool:
    """None, NaN and pandas' NaT/NA: no value (the attribute is left out)."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    try:  # pandas.NaT, pandas.NA, numpy.nan without importing pandas
        return bool(value != value)
    except (TypeError, ValueError):
        return False


def to_nanos(value: Any) -> int:
    """Nanoseconds since the Unix epoch of a time value (see the module doc)."""
    if hasattr(value, "value") and type(value).__name__ == "Timestamp":  # pandas
        if value.tzinfo is None:
            return int(value.value)
        return int(value.tz_convert("UTC").value)
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        delta = value - _EPOCH
        return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1000
    if isinstance(value, _dt.date):
        return to_nanos(_dt.datetime(value.year, value.month, value.day, tzinfo=UTC))
    if isinstance(value, bool):
        raise TypeError("a boolean is not a time")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        # Whole seconds apart from the fraction: a double of seconds since the
        # epoch has no room for nanoseconds, so rounding the product is off by ~100 ns.
        fraction, whole = math.modf(float(value))
        return int(whole) * 1_000_000_000 + round(fraction * 1e9)
    if hasattr(value, "astype") and "datetime64" in str(getattr(value, "dtype", "")):
        return int(value.astype("datetime64[ns]").astype("int64"))
    raise TypeError(f"{value!r} is not a time: use datetime, pandas.Timestamp, "
                    "int nanoseconds or float seconds")


def measure_value(value: Any) -> tuple[int, records_pb2.MeasureValue]:
    """The measure type and wire value of a Python value (not missing)."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return records_pb2.MEASURE_VALUE_TYPE_BOOLEAN, records_pb2.MeasureValue(boolean_value=bool(value))
    if isinstance(value, numbers.Integral):
        return records_pb2.MEASURE_VALUE_TYPE_BIGINT, records_pb2.MeasureValue(bigint_value=int(value))
    if isinstance(value, numbers.Real):
        return records_pb2.MEASURE_VALUE_TYPE_DOUBLE, records_pb2.MeasureValue(double_value=float(value))
    if isinstance(value, str):
        return records_pb2.MEASURE_VALUE_TYPE_VARCHAR, records_pb2.MeasureValue(varchar_value=value)
    if isinstance(value, (_dt.datetime, _dt.date)) or type(value).__name__ == "Timestamp":
        return (records_pb2.MEASURE_VALUE_TYPE_TIMESTAMP,
                records_pb2.MeasureValue(timestamp_value=to_nanos(value)))
    raise TypeError(f"{value!r} ({type(value).__name__}) is not a measure value: use bool, int, "
                    "float, str or a time")


def to_datum(value: Any) -> query_pb2.Datum:
    """A query parameter's wire value."""
    if is_missing(value):
        return query_pb2.Datum(null_value=True)
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return query_pb2.Datum(boolean_value=bool(value))
    if isinstance(value, numbers.Integral):
        return query_pb2.Datum(bigint_value=int(value))
    if isinstance(value, numbers.Real):
        return query_pb2.Datum(double_value=float(value))
    if isinstance(value, str):
        return query_pb2.Datum(varchar_value=value)
    if isinstance(value, _dt.timedelta):
        return query_pb2.Datum(interval_nanos_value=(value // _dt.timedelta(microseconds=1)) * 1000)
    if isinstance(value, _dt.date) and not isinstance(value, _dt.datetime):
        return query_pb2.Datum(date_value=(value - _EPOCH_DATE).days)
    if isinstance(value, _dt.datetime) or type(value).__name__ == "Timestamp":
        return query_pb2.Datum(timestamp_value=to_nanos(value))
    raise TypeError(f"{value!r} ({type(value).__name__}) cannot be a query parameter")


TIMESTAMP_FORMS = ("datetime", "ns", "pandas")


def from_timestamp(nanos: int, timestamps: str = "datetime") -> Any:
    """A TIMESTAMP (nanoseconds since the epoch) in the form asked for."""
    if timestamps == "ns":
        return nanos
    if timestamps == "pandas":
        import pandas  # optional dependency, asked for by the caller

        return pandas.Timestamp(nanos, unit="ns", tz="UTC")
    return _EPOCH + _dt.timedelta(microseconds=nanos // 1000)


def from_interval(nanos: int) -> _dt.timedelta:
    return _dt.timedelta(microseconds=nanos // 1000)


def from_date(days: int) -> _dt.date:
    """A DATE (days since the epoch)."""
    return _EPOCH_DATE + _dt.timedelta(days=days)


def from_datum(datum: query_pb2.Datum, timestamps: str = "datetime") -> Any:
    """The Python value of a result cell."""
    kind = datum.WhichOneof("value")
    if kind is None or kind == "null_value":
        return None
    if kind == "timestamp_value":
        return from_timestamp(datum.timestamp_value, timestamps)
    if kind == "interval_nanos_value":
        return from_interval(datum.interval_nanos_value)
    if kind == "date_value":
        return from_date(datum.date_value)
    if kind == "array_value":
        return [from_datum(d, timestamps) for d in datum.array_value.values]
    if kind == "row_value":
        return tuple(from_datum(d, timestamps) for d in datum.row_value.data)
    if kind == "time_series_value":
        return [(from_timestamp(p.time, timestamps), from_datum(p.value, timestamps))
                for p in datum.time_series_value.points]
    return getattr(datum, kind)


def from_column(column: query_pb2.ColumnValues, scalar_type: Optional[int], rows: int,
                timestamps: str = "datetime") -> List[Any]:
    """The Python values of one column of a columnar page. `scalar_type` is
    None for an array, row or timeseries column (a Datum per row)."""
    name = "NESTED" if scalar_type is None else query_pb2.ScalarType.Name(scalar_type)
    if name == "NESTED":
        values = [from_datum(d, timestamps) for d in column.values]
    elif name == "SCALAR_TYPE_VARCHAR":
        data = column.string_data
        values: List[Any] = []
        start = 0
        for end in column.string_ends:
            values.append(data[start:end].decode("utf-8"))
            start = end
    elif name == "SCALAR_TYPE_DOUBLE":
        values = list(column.doubles)
    elif name == "SCALAR_TYPE_BOOLEAN":
        values = list(column.booleans)
    elif name == "SCALAR_TYPE_TIMESTAMP":
        values = [from_timestamp(n, timestamps) for n in column.ints]
    elif name in ("SCALAR_TYPE_INTERVAL_DAY_TO_SECOND", "SCALAR_TYPE_TIME"):
        values = [from_interval(n) for n in column.ints]
    elif name == "SCALAR_TYPE_DATE":
        values = [from_date(n) for n in column.ints]
    elif name in ("SCALAR_TYPE_BIGINT", "SCALAR_TYPE_INTEGER", "SCALAR_TYPE_INTERVAL_YEAR_TO_MONTH"):
        values = list(column.ints)
    elif name == "SCALAR_TYPE_UNKNOWN":
        values = [None] * rows
    else:
        raise ValueError(f"a columnar page holds a type it does not carry ({name})")
    if len(values) != rows:
        raise ValueError(f"a columnar page holds {len(values)} values for {rows} rows")
    nulls = column.nulls
    if nulls and len(nulls) != (rows + 7) // 8:
        raise ValueError(f"a columnar page has a null map of {len(nulls)} bytes for {rows} rows")
    if nulls:
        for i in range(rows):
            if nulls[i >> 3] >> (i & 7) & 1:
                values[i] = None
    return values


def optional_int(value: Optional[int]) -> Optional[int]:
    return None if value is None else int(value)
