// Maps (Presto semantics): map(keys, values), map_agg, histogram,
// map_keys and map_values. m[key], element_at and cardinality take maps in
// functions_array.cc. A map keeps its entries in key order (NestedValue), so
// equal maps print, group and compare alike and a key is found by binary
// search.
#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "common/status.h"
#include "common/strings.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;

bool IsMapOrNull(DataType t) { return t == DataType::kUnknown || KindOf(t) == TypeKind::kMap; }

std::string MapProblem(std::string_view function, const std::string& problem) {
  if (problem == "null") return StrCat(function, "(): a map key cannot be NULL");
  return StrCat(function, "(): duplicate map key ", problem, " (each key appears once)");
}

// map_agg(k, v) and histogram(x): entries by key (the first value of a key
// wins in map_agg; histogram counts), at most kMaxNestedValues keys.
class MapAcc : public Accumulator {
 public:
  MapAcc(DataType type, bool count) : type_(type), count_(count) {}
  void Add(const Args& a) override {
    if (a[0].null) return;
    std::string key;
    AppendKey(a[0], &key);
    auto [it, fresh] = index_.try_emplace(std::move(key), entries_.size());
    if (!fresh) {
      if (count_) ++entries_[it->second].second.i;
      return;
    }
    if (entries_.size() == kMaxNestedValues) {
      index_.erase(it);
      overflow_ = true;
      return;
    }
    entries_.emplace_back(a[0], count_ ? Datum::Bigint(1) : CoerceTo(a[1], ElementType(type_)));
    Kept(static_cast<int64_t>(2 * sizeof(Datum) + it->first.size() + 32) + a[0].HeapBytes() +
         entries_.back().second.HeapBytes());
  }
  absl::StatusOr<Datum> Finish() override {
    const std::string_view name = count_ ? "histogram" : "map_agg";
    if (overflow_) {
      return absl::ResourceExhaustedError(StrCat(
          name, "(): a group has more than ", kMaxNestedValues,
          " keys, the most one map holds; group by more columns or a narrower time range"));
    }
    // No rows with a key: NULL, as Presto's (and Timestream's) aggregates other than count.
    if (entries_.empty()) return Datum::Null(type_);
    std::string problem;
    // A copy: more rows may come, found through index_ (Finish).
    std::optional<Datum> map = MakeMap(type_, entries_, &problem);
    if (!map) return absl::InvalidArgumentError(MapProblem(name, problem));
    return *std::move(map);
  }

 private:
  DataType type_;
  bool count_;
  std::vector<std::pair<Datum, Datum>> entries_;
  absl::flat_hash_map<std::string, size_t> index_;
  bool overflow_ = false;
};

}  // namespace

const Datum* FindMapValue(const Datum& map, const Datum& key) {
  if (map.null || key.null || !map.nested) return nullptr;
  const std::vector<Datum>& keys = map.nested->keys;
  auto it = std::lower_bound(keys.begin(), keys.end(), key,
                             [](const Datum& a, const Datum& b) { return Compare(a, b) < 0; });
  if (it == keys.end() || Compare(*it, key) != 0) return nullptr;
  return &map.items()[static_cast<size_t>(it - keys.begin())];
}

bool MapKeyFits(DataType map, DataType key) {
  const DataType k = MapKeyType(map);
  return key == DataType::kUnknown || k == DataType::kUnknown || key == k ||
         (IsNumeric(key) && IsNumeric(k));
}

void AddMapFunctions(std::vector<ScalarFunction>* scalars,
                     std::vector<AggregateFunction>* aggregates) {
  auto add = [scalars](ScalarFunction f) { scalars->push_back(std::move(f)); };
  const DataType kBig = DataType::kBigint;

  add({"map", "map([keys, values]) -> map(type of key, type of value)",
       "A map of keys[i] to values[i] (arrays of one length; keys neither NULL nor repeated); "
       "map() is empty. A map travels to clients as an array of (key, value) rows.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.empty()) return Interned(MapOf(DataType::kUnknown, DataType::kUnknown));
         if (t.size() != 2 || !IsArrayOrNull(t[0]) || !IsArrayOrNull(t[1])) {
           return WrongArguments("map(array(K), array(V))");
         }
         return Interned(MapOf(ElementType(t[0]), ElementType(t[1])));
       },
       nullptr});
  scalars->back().can_fail = true;
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext& c) {
    if (a.empty()) return Datum::Map(type, {}, {});
    const std::vector<Datum>& keys = a[0].items();
    const std::vector<Datum>& values = a[1].items();
    if (keys.size() != values.size()) {
      return FailQuery(c, StrCat("map(): ", keys.size(), " keys and ", values.size(),
                                 " values; the arrays must have one length"),
                       type);
    }
    std::vector<std::pair<Datum, Datum>> entries;
    entries.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      entries.emplace_back(CoerceTo(keys[i], MapKeyType(type)), CoerceTo(values[i], ElementType(type)));
    }
    std::string problem;
    std::optional<Datum> map = MakeMap(type, std::move(entries), &problem);
    return map ? *std::move(map) : FailQuery(c, MapProblem("map", problem), type);
  };

  for (const auto& [name, which] : {std::pair{"map_keys", true}, std::pair{"map_values", false}}) {
    const bool keys = which;  // clang 14 cannot capture a structured binding
    const std::string signature = StrCat(name, "(map) -> array");
    add({name, signature,
         StrCat("The map's ", keys ? "keys" : "values", ", in key order."),
         [signature, keys](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() != 1 || !IsMapOrNull(t[0])) return WrongArguments(signature);
           return Interned(ArrayOf(keys ? MapKeyType(t[0]) : ElementType(t[0])));
         },
         nullptr});
    scalars->back().eval_typed = [keys](const Args& a, DataType type, const EvalContext&) {
      return Datum::Composite(type, keys ? a[0].nested->keys : a[0].items());
    };
  }

  aggregates->push_back(
      {"map_agg", "map_agg(key, value) -> map",
       "The group's key-value pairs as a map (rows with a NULL key left out; of a repeated "
       "key, the first value).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2) return WrongArguments("map_agg(key, value)");
         return Interned(MapOf(t[0], t[1]));
       },
       [](const Types& t) -> std::unique_ptr<Accumulator> {
         return std::make_unique<MapAcc>(*MapOf(t[0], t[1]), /*count=*/false);
       }});
  aggregates->push_back(
      {"histogram", "histogram(x) -> map(type of x, bigint)",
       "How many times each non-NULL value occurs in the group.",
       [kBig](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1) return WrongArguments("histogram(x)");
         return Interned(MapOf(t[0], kBig));
       },
       [kBig](const Types& t) -> std::unique_ptr<Accumulator> {
         return std::make_unique<MapAcc>(*MapOf(t[0], kBig), /*count=*/true);
       }});
}

}  // namespace strata::query
