#include "query/exec/set_operation.h"

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "common/status.h"

namespace strata::query {
namespace {

// A side's rows, converted to the result's column types (a BIGINT column
// UNIONed with a DOUBLE one is DOUBLE), handed to `take`. Finish is the
// caller's: both sides feed one result.
class Conform : public RowSink {
 public:
  Conform(const std::vector<DataType>& types, std::function<absl::Status(Row)> take)
      : types_(types), take_(std::move(take)) {}
  absl::Status Push(Row row) override {
    for (size_t c = 0; c < row.size() && c < types_.size(); ++c) {
      Datum& v = row[c];
      if (v.type == types_[c]) continue;
      if (v.null) {
        v = Datum::Null(types_[c]);
      } else if (types_[c] == DataType::kDouble && IsNumeric(v.type)) {
        v = Datum::Double(v.AsDouble());
      }
    }
    return take_(std::move(row));
  }
  absl::Status Finish() override { return absl::OkStatus(); }

 private:
  const std::vector<DataType>& types_;
  std::function<absl::Status(Row)> take_;
};

std::string KeyOf(const Row& row) {
  std::string key;
  for (const Datum& d : row) AppendKey(d, &key);
  return key;
}

}  // namespace

absl::Status RunSetOperation(SetOperation op, bool all, const PlanRun& left, const PlanRun& right,
                             std::vector<DataType> types, QueryContext* context, RowSink* out) {
  // For UNION: keys already sent. For INTERSECT and EXCEPT: how often each
  // key is in the right side (then how many more may pass).
  absl::flat_hash_map<std::string, int64_t> counts;
  auto remember = [&](std::string key) -> absl::Status {
    RETURN_IF_ERROR(context->Reserve(static_cast<int64_t>(key.size()) + 48,
                                     "a set operation's rows"));
    ++counts[std::move(key)];
    return absl::OkStatus();
  };
  if (op == SetOperation::kUnion) {
    auto take = [&](Row row) -> absl::Status {
      if (context->enough.load()) return absl::OkStatus();
      if (!all) {
        std::string key = KeyOf(row);
        if (counts.contains(key)) return absl::OkStatus();
        RETURN_IF_ERROR(remember(std::move(key)));
      }
      return out->Push(std::move(row));
    };
    Conform left_rows(types, take), right_rows(types, take);
    RETURN_IF_ERROR(left(&left_rows));
    if (!context->enough.load()) RETURN_IF_ERROR(right(&right_rows));
    return out->Finish();
  }
  Conform right_rows(types, [&](Row row) { return remember(KeyOf(row)); });
  RETURN_IF_ERROR(right(&right_rows));
  absl::flat_hash_map<std::string, int64_t> sent;  // distinct results already sent
  auto take = [&](Row row) -> absl::Status {
    if (context->enough.load()) return absl::OkStatus();
    std::string key = KeyOf(row);
    auto found = counts.find(key);
    const bool in_right = found != counts.end() && found->second > 0;
    bool pass = false;
    if (all) {
      // INTERSECT ALL: min(m, n) copies; EXCEPT ALL: max(m - n, 0).
      pass = op == SetOperation::kIntersect ? in_right : !in_right;
      if (in_right) --found->second;
    } else {
      pass = (op == SetOperation::kIntersect) == (found != counts.end()) && !sent.contains(key);
      if (pass) {
        RETURN_IF_ERROR(context->Reserve(static_cast<int64_t>(key.size()) + 48,
                                         "a set operation's rows"));
        sent[std::move(key)] = 1;
      }
    }
    return pass ? out->Push(std::move(row)) : absl::OkStatus();
  };
  Conform left_rows(types, take);
  RETURN_IF_ERROR(left(&left_rows));
  return out->Finish();
}

absl::Status RunRecursiveUnion(bool all, const PlanRun& first, const PlanRun& step,
                               WorkingTable* table, std::vector<DataType> types,
                               QueryContext* context, RowSink* out) {
  absl::flat_hash_set<std::string> made_before;  // without ALL: every row sent
  std::vector<Row> made;                         // this step's rows, the next step's input
  int64_t made_bytes = 0;
  bool enough = false;
  auto take = [&](Row row) -> absl::Status {
    if (enough) return absl::OkStatus();
    if (!all) {
      std::string key = KeyOf(row);
      if (made_before.contains(key)) return absl::OkStatus();
      RETURN_IF_ERROR(
          context->Reserve(static_cast<int64_t>(key.size()) + 48, "a recursive WITH query's rows"));
      made_before.insert(std::move(key));
    }
    const int64_t bytes = RowBytes(row);
    RETURN_IF_ERROR(context->Reserve(bytes, "a recursive WITH query's rows"));
    made_bytes += bytes;
    made.push_back(row);
    RETURN_IF_ERROR(out->Push(std::move(row)));
    // The consumer's LIMIT: an endless recursion (`SELECT n + 1 FROM t`) stops here.
    enough = context->enough.load();
    return absl::OkStatus();
  };
  Conform first_rows(types, take), step_rows(types, take);
  RETURN_IF_ERROR(first(&first_rows));
  int64_t read_bytes = 0;  // the rows the running step reads
  while (!enough && !made.empty()) {
    RETURN_IF_ERROR(context->CheckAlive());
    context->Release(read_bytes);
    table->rows = std::move(made);
    read_bytes = made_bytes;
    made.clear();
    made_bytes = 0;
    table->reading = true;
    absl::Status ran = step(&step_rows);
    table->reading = false;
    RETURN_IF_ERROR(ran);
  }
  table->rows.clear();
  context->Release(read_bytes + made_bytes);
  return out->Finish();
}

}  // namespace strata::query
