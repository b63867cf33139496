#include "query/base/vector.h"

#include <numeric>

namespace strata::query {
namespace {

void SizeValues(Vector& v, size_t n) {
  if (UsesInts(v.type)) v.ints.resize(n);
  if (v.type == DataType::kDouble) v.doubles.resize(n);
  if (IsText(v.type)) v.strings.resize(n);
  if (IsComposite(v.type)) v.nested.resize(n);
}

}  // namespace

void Vector::ResetNull(size_t n) {
  nulls.assign(n, 1);
  SizeValues(*this, n);
}

Datum Vector::Get(size_t i) const {
  if (nulls[i]) return Datum::Null(type);
  if (IsComposite(type)) return Datum{.type = type, .null = false, .nested = nested[i]};
  switch (type) {
    case DataType::kDouble: return Datum::Double(doubles[i]);
    case DataType::kVarchar: return Datum::Varchar(std::string(strings[i]));
    case DataType::kJson:
      return Datum::Json(std::string(strings[i]));
    case DataType::kUnknown: return Datum::Null();
    default: {
      Datum d = Datum::Bigint(ints[i]);
      d.type = type;
      return d;
    }
  }
}

void Vector::Set(size_t i, const Datum& d) {
  if (d.null) {
    nulls[i] = 1;
    return;
  }
  if (type == DataType::kUnknown) {  // a NULL-typed expression that produced a value
    type = d.type;
    SizeValues(*this, nulls.size());
  }
  nulls[i] = 0;
  if (IsComposite(type)) {
    nested[i] = d.nested;
    return;
  }
  switch (type) {
    case DataType::kDouble: doubles[i] = d.AsDouble(); break;
    case DataType::kVarchar:
    case DataType::kJson:
      if (IsText(d.type)) {
        SetOwnedString(i, d.s);
      } else {
        SetOwnedString(i, d.ToString());
      }
      break;
    default: ints[i] = d.type == DataType::kDouble ? static_cast<int64_t>(d.d) : d.i; break;
  }
}

void Vector::SetView(size_t i, const Datum& d) {
  if (!IsText(type) || d.null || !IsText(d.type)) return Set(i, d);
  strings[i] = d.s;
  nulls[i] = 0;
}

void Vector::SetOwnedString(size_t i, std::string s) {
  if (!arena) arena = std::make_shared<std::deque<std::string>>();
  arena->push_back(std::move(s));
  strings[i] = arena->back();
  nulls[i] = 0;
}

bool Vector::SameValue(size_t i, const Vector& other, size_t j) const {
  if (nulls[i] || other.nulls[j]) return nulls[i] == other.nulls[j];
  if (IsComposite(type)) return Compare(Get(i), other.Get(j)) == 0;
  switch (type) {
    case DataType::kDouble: return doubles[i] == other.doubles[j];
    case DataType::kVarchar:  // views of one series' value share their bytes
    case DataType::kJson:
      return (strings[i].data() == other.strings[j].data() &&
              strings[i].size() == other.strings[j].size()) ||
             strings[i] == other.strings[j];
    case DataType::kUnknown: return true;
    default: return ints[i] == other.ints[j];
  }
}

void AppendKey(const Vector& v, size_t i, std::string* out) {
  if (v.nulls[i]) {
    out->push_back('\0');
    return;
  }
  if (IsComposite(v.type) || v.type == DataType::kUnknown) {
    AppendKey(v.Get(i), out);
  } else if (IsText(v.type)) {
    AppendTextKey(v.strings[i], out);
  } else if (v.type == DataType::kDouble) {
    AppendNumberKey(v.type, 0, v.doubles[i], out);
  } else {
    AppendNumberKey(v.type, v.ints[i], 0, out);
  }
}

Batch NewBatch(const std::vector<DataType>& types, size_t rows) {
  Batch batch;
  batch.rows = rows;
  batch.columns.reserve(types.size());
  for (DataType t : types) {
    batch.columns.emplace_back(t);
    batch.columns.back().ResetNull(rows);
  }
  return batch;
}

Batch SelectRows(const Batch& from, const std::vector<uint8_t>& keep) {
  std::vector<uint32_t> rows;
  for (size_t i = 0; i < keep.size(); ++i) {
    if (keep[i] != 0) rows.push_back(static_cast<uint32_t>(i));
  }
  return TakeRows(from, rows);
}

namespace {

// to[k] = from[rows[k]] for every k; `to` sized once (a loop per array, not a
// push_back of each array per row).
template <typename T>
void Gather(const std::vector<T>& from, const std::vector<uint32_t>& rows, std::vector<T>* to) {
  if (from.empty()) return;
  to->resize(rows.size());
  for (size_t k = 0; k < rows.size(); ++k) (*to)[k] = from[rows[k]];
}

}  // namespace

Batch TakeRows(const Batch& from, const std::vector<uint32_t>& rows) {
  Batch out;
  out.rows = rows.size();
  out.columns.reserve(from.columns.size());
  for (const Vector& in : from.columns) {
    Vector& v = out.columns.emplace_back(in.type);
    if (in.size() != from.rows) continue;  // a column the query does not read
    v.arena = in.arena;
    Gather(in.nulls, rows, &v.nulls);
    Gather(in.ints, rows, &v.ints);
    Gather(in.doubles, rows, &v.doubles);
    Gather(in.strings, rows, &v.strings);
    Gather(in.nested, rows, &v.nested);
  }
  return out;
}

size_t RowsWithinBytes(const Batch& batch, size_t start, size_t n, int64_t bytes) {
  if (bytes <= 0 || n == 0) return 0;
  // Each row's bytes: 9 a value read, and its texts and nested values summed a column at a
  // time (tight loops over the texts' sizes); then counted until they pass `bytes`.
  int64_t per_row = 0;
  std::vector<int64_t> sizes(n, 0);
  for (const Vector& v : batch.columns) {
    if (v.size() != batch.rows) continue;  // a column nothing reads
    per_row += 9;
    if (IsText(v.type)) {
      for (size_t i = 0; i < n; ++i) sizes[i] += static_cast<int64_t>(v.strings[start + i].size());
    } else if (IsComposite(v.type)) {
      for (size_t i = 0; i < n; ++i) {
        sizes[i] += v.null(start + i) ? 0 : v.Get(start + i).HeapBytes();
      }
    }
  }
  int64_t sum = 0;
  for (size_t taken = 0; taken < n; ++taken) {
    sum += per_row + sizes[taken];
    if (sum > bytes) return taken;
  }
  return n;
}

Batch SliceRows(const Batch& from, size_t begin, size_t end) {
  std::vector<uint32_t> rows(end - begin);
  std::iota(rows.begin(), rows.end(), static_cast<uint32_t>(begin));
  return TakeRows(from, rows);
}

}  // namespace strata::query
