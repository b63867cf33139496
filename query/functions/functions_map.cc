// Maps (Presto semantics): map(keys, values), map_concat, map_entries,
// map_from_entries, multimap_from_entries, map_keys, map_values and the
// aggregates map_agg, map_union, multimap_agg and histogram. m[key],
// element_at and cardinality take maps in functions_array.cc; map_filter,
// transform_keys, transform_values and map_zip_with take lambdas
// (query/expr/expr_lambdas.cc). A map keeps its entries in key order (NestedValue), so
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

// map_agg(k, v), map_union(m), multimap_agg(k, v) and histogram(x): entries by key, at most
// kMaxNestedValues keys (and values of a key, for multimap_agg). NULL keys are left out.
class MapAcc : public Accumulator {
 public:
  enum class Values {
    kFirst,    // map_agg, map_union: a repeated key keeps its first value
    kCount,    // histogram: how many times a key came
    kCollect,  // multimap_agg: every value of a key, in the order rows arrive
  };
  // `of_maps`: each row brings a map whose entries are added (map_union).
  MapAcc(std::string_view name, DataType type, Values values, bool of_maps = false)
      : name_(name), type_(type), values_(values), of_maps_(of_maps) {}
  void Add(const Args& a) override {
    if (!of_maps_) {
      AddEntry(a[0], values_ == Values::kCount ? a[0] : a[1]);
    } else if (!a[0].null) {
      const std::vector<Datum>& values = a[0].items();
      for (size_t k = 0; k < values.size(); ++k) AddEntry(a[0].nested->keys[k], values[k]);
    }
  }
  absl::StatusOr<Datum> Finish() override {
    if (overflow_) {
      return absl::ResourceExhaustedError(StrCat(
          name_, "(): a group has more than ", kMaxNestedValues, " ",
          values_ == Values::kCollect ? "keys or values of a key" : "keys",
          ", the most one map (or array) holds; group by more columns or a narrower time range"));
    }
    // No rows with a key: NULL, as Presto's (and Timestream's) aggregates other than count.
    if (entries_.empty()) return Datum::Null(type_);
    // A copy: more rows may come, found through index_ (Finish).
    std::vector<std::pair<Datum, Datum>> entries = entries_;
    if (values_ == Values::kCollect) {
      for (size_t i = 0; i < entries.size(); ++i) {
        entries[i].second = Datum::Composite(ElementType(type_), lists_[i]);
      }
    }
    std::string problem;
    std::optional<Datum> map = MakeMap(type_, std::move(entries), &problem);
    if (!map) return absl::InvalidArgumentError(MapProblem(name_, problem));
    return *std::move(map);
  }

 private:
  void AddEntry(const Datum& key, const Datum& value) {
    if (key.null || overflow_) return;
    std::string bytes;
    AppendKey(key, &bytes);
    auto [it, fresh] = index_.try_emplace(std::move(bytes), entries_.size());
    if (!fresh) {
      if (values_ == Values::kCount) ++entries_[it->second].second.i;
      if (values_ == Values::kCollect) Collect(it->second, value);
      return;
    }
    if (entries_.size() == kMaxNestedValues) {
      index_.erase(it);
      overflow_ = true;
      return;
    }
    Datum kept = values_ == Values::kCount     ? Datum::Bigint(1)
                 : values_ == Values::kCollect ? Datum::Null(ElementType(type_))
                                               : CoerceTo(value, ElementType(type_));
    entries_.emplace_back(key, std::move(kept));
    Kept(static_cast<int64_t>(2 * sizeof(Datum) + it->first.size() + 32) + key.HeapBytes() +
         entries_.back().second.HeapBytes());
    if (values_ == Values::kCollect) {
      lists_.emplace_back();
      Collect(lists_.size() - 1, value);
    }
  }
  void Collect(size_t entry, const Datum& value) {
    std::vector<Datum>& list = lists_[entry];
    if (list.size() == kMaxNestedValues) {
      overflow_ = true;
      return;
    }
    list.push_back(CoerceTo(value, ElementType(ElementType(type_))));
    Kept(static_cast<int64_t>(sizeof(Datum)) + list.back().HeapBytes());
  }

  std::string_view name_;
  DataType type_;
  Values values_;
  bool of_maps_;
  std::vector<std::pair<Datum, Datum>> entries_;
  std::vector<std::vector<Datum>> lists_;  // kCollect: entries_[i]'s values
  absl::flat_hash_map<std::string, size_t> index_;
  bool overflow_ = false;
};

// The binder of f(array(row(K, V))) -> map(K, `list` ? array(V) : V).
auto OnEntries(std::string signature, bool list) {
  return [=](const Types& t) -> absl::StatusOr<DataType> {
    if (t.size() != 1 || !IsArrayOrNull(t[0])) return WrongArguments(signature);
    const DataType entry = ElementType(t[0]);
    if (entry == DataType::kUnknown) return Interned(MapOf(DataType::kUnknown, DataType::kUnknown));
    if (KindOf(entry) != TypeKind::kRow || RowFields(entry).size() != 2) {
      return WrongArguments(signature);
    }
    DataType value = RowFields(entry)[1].type;
    if (list) {
      ASSIGN_OR_RETURN(value, Interned(ArrayOf(value)));
    }
    return Interned(MapOf(RowFields(entry)[0].type, value));
  };
}

// The map of an array of (key, value) rows; with `list` each key's values as an array, in
// the array's order, else a key repeated is an error.
Datum MapFromEntries(std::string_view name, const Datum& array, DataType type, bool list,
                     const EvalContext& c) {
  std::vector<std::pair<Datum, Datum>> entries;
  std::vector<std::vector<Datum>> lists;
  absl::flat_hash_map<std::string, size_t> index;
  for (const Datum& entry : array.items()) {
    if (entry.null) return FailQuery(c, StrCat(name, "(): a map entry cannot be NULL"), type);
    const Datum& key = entry.items()[0];
    if (key.null) return FailQuery(c, MapProblem(name, "null"), type);
    const Datum value = CoerceTo(entry.items()[1], ElementType(list ? ElementType(type) : type));
    if (list) {
      std::string bytes;
      AppendKey(key, &bytes);
      auto [it, fresh] = index.try_emplace(std::move(bytes), entries.size());
      if (!fresh) {
        lists[it->second].push_back(value);
        continue;
      }
      lists.push_back({value});
    }
    entries.emplace_back(CoerceTo(key, MapKeyType(type)), list ? Datum() : value);
  }
  for (size_t i = 0; i < lists.size(); ++i) {
    entries[i].second = Datum::Composite(ElementType(type), std::move(lists[i]));
  }
  std::string problem;
  std::optional<Datum> map = MakeMap(type, std::move(entries), &problem);
  return map ? *std::move(map) : FailQuery(c, MapProblem(name, problem), type);
}

}  // namespace

std::string MapProblem(std::string_view function, const std::string& problem) {
  if (problem == "null") return StrCat(function, "(): a map key cannot be NULL");
  return StrCat(function, "(): duplicate map key ", problem, " (each key appears once)");
}

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

  for (const bool multi : {false, true}) {
    const std::string name = multi ? "split_to_multimap" : "split_to_map";
    const std::string signature = StrCat(name, "(varchar, entry_delimiter, key_value_delimiter)");
    add({name,
         StrCat(signature,
                multi ? " -> map(varchar, array(varchar))" : " -> map(varchar, varchar)"),
         StrCat("The text's entries (split at entry_delimiter), each a key and a value split at "
                "key_value_delimiter, which appears once in each: ",
                multi ? "a key's values in their order (split_to_multimap('a=1;b=2;a=3', ';', "
                        "'=') maps a to [1, 3])."
                      : "split_to_map('a=1;b=2', ';', '='). A key written twice fails the query."),
         [signature, multi](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() != 3 || !Accepts(Param::kVarchar, t[0]) ||
               !Accepts(Param::kVarchar, t[1]) || !Accepts(Param::kVarchar, t[2])) {
             return WrongArguments(signature);
           }
           if (!multi) return Interned(MapOf(DataType::kVarchar, DataType::kVarchar));
           return Interned(MapOf(DataType::kVarchar, *ArrayOf(DataType::kVarchar)));
         },
         nullptr});
    scalars->back().can_fail = true;
    scalars->back().eval_typed = [name, multi](const Args& a, DataType type, const EvalContext& c) {
      const std::string &text = a[0].s, &entry = a[1].s, &pair = a[2].s;
      if (entry.empty() || pair.empty() || entry == pair) {
        return FailQuery(
            c, StrCat(name, "(): the delimiters must be two different, non-empty texts"), type);
      }
      std::vector<std::pair<Datum, Datum>> entries;
      std::vector<std::vector<Datum>> lists;  // split_to_multimap: each key's values
      absl::flat_hash_map<std::string, size_t> index;
      for (size_t from = 0; from < text.size();) {
        const size_t end = std::min(text.find(entry, from), text.size());
        const std::string_view part = std::string_view(text).substr(from, end - from);
        from = end == text.size() ? end : end + entry.size();
        const size_t at = part.find(pair);
        if (at == std::string_view::npos ||
            part.find(pair, at + pair.size()) != std::string_view::npos) {
          return FailQuery(c,
                           StrCat(name, "(): the entry '", EchoInput(part), "' has ",
                                  at == std::string_view::npos ? "no" : "more than one", " '",
                                  EchoInput(pair), "' (each entry is key", pair, "value)"),
                           type);
        }
        Datum key = Datum::Varchar(std::string(part.substr(0, at)));
        Datum value = Datum::Varchar(std::string(part.substr(at + pair.size())));
        if (multi) {
          auto [it, fresh] = index.try_emplace(key.s, entries.size());
          if (!fresh) {
            lists[it->second].push_back(std::move(value));
            continue;
          }
          lists.push_back({std::move(value)});
          value = Datum();
        }
        entries.emplace_back(std::move(key), std::move(value));
      }
      for (size_t i = 0; i < lists.size(); ++i) {
        entries[i].second = Datum::Composite(ElementType(type), std::move(lists[i]));
      }
      std::string problem;
      std::optional<Datum> map = MakeMap(type, std::move(entries), &problem);
      return map ? *std::move(map) : FailQuery(c, MapProblem(name, problem), type);
    };
  }

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

  add({"map_concat", "map_concat(map, map, ...) -> map",
       "The union of the maps; of a key in several, the value of the last.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         constexpr std::string_view kSignature = "map_concat(map, map [, ...])";
         if (t.size() < 2) return WrongArguments(kSignature);
         Types keys, values;
         for (DataType m : t) {
           if (!IsMapOrNull(m)) return WrongArguments(kSignature);
           keys.push_back(MapKeyType(m));
           values.push_back(ElementType(m));
         }
         ASSIGN_OR_RETURN(DataType key, CommonElementType(keys, kSignature));
         ASSIGN_OR_RETURN(DataType value, CommonElementType(values, kSignature));
         return Interned(MapOf(key, value));
       },
       nullptr});
  scalars->back().can_fail = true;
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext& c) {
    std::vector<std::pair<Datum, Datum>> entries;
    absl::flat_hash_map<std::string, size_t> index;
    for (const Datum& m : a) {
      const std::vector<Datum>& values = m.items();
      for (size_t k = 0; k < values.size(); ++k) {
        std::string bytes;
        AppendKey(m.nested->keys[k], &bytes);
        auto [it, fresh] = index.try_emplace(std::move(bytes), entries.size());
        Datum value = CoerceTo(values[k], ElementType(type));
        if (!fresh) {
          entries[it->second].second = std::move(value);
        } else if (entries.size() == kMaxNestedValues) {
          return FailQuery(
              c,
              StrCat("map_concat(): more than ", kMaxNestedValues, " keys, the most one map holds"),
              type);
        } else {
          entries.emplace_back(CoerceTo(m.nested->keys[k], MapKeyType(type)), std::move(value));
        }
      }
    }
    std::string problem;
    std::optional<Datum> map = MakeMap(type, std::move(entries), &problem);
    return map ? *std::move(map) : FailQuery(c, MapProblem("map_concat", problem), type);
  };

  add({"map_entries", "map_entries(map) -> array(row(key, value))",
       "The map's entries as (key, value) rows (fields field0 and field1), in key order.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || !IsMapOrNull(t[0])) return WrongArguments("map_entries(map)");
         ASSIGN_OR_RETURN(DataType row,
                          Interned(RowOf({{.name = "field0", .type = MapKeyType(t[0])},
                                          {.name = "field1", .type = ElementType(t[0])}})));
         return Interned(ArrayOf(row));
       },
       nullptr});
  scalars->back().eval_typed = [](const Args& a, DataType type, const EvalContext&) {
    const std::vector<Datum>& values = a[0].items();
    std::vector<Datum> rows;
    rows.reserve(values.size());
    for (size_t k = 0; k < values.size(); ++k) {
      rows.push_back(Datum::Composite(ElementType(type), {a[0].nested->keys[k], values[k]}));
    }
    return Datum::Composite(type, std::move(rows));
  };

  for (const auto& [name, which] :
       {std::pair{"map_from_entries", false}, std::pair{"multimap_from_entries", true}}) {
    const bool list = which;  // clang 14 cannot capture a structured binding
    const std::string signature =
        StrCat(name, "(array(row(key, value))) -> map", list ? "(type of key, array)" : "");
    add({name, signature,
         list ? "A map of each key to its values (NULLs included) as an array, in the array's "
                "order; NULL entries and keys are errors."
              : "A map of the array's (key, value) rows; NULL entries, NULL keys and repeated "
                "keys are errors.",
         OnEntries(signature, list), nullptr});
    scalars->back().can_fail = true;
    scalars->back().eval_typed = [name = std::string_view(name), list](const Args& a, DataType type,
                                                                       const EvalContext& c) {
      return MapFromEntries(name, a[0], type, list, c);
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
         return std::make_unique<MapAcc>("map_agg", *MapOf(t[0], t[1]), MapAcc::Values::kFirst);
       }});
  aggregates->push_back({"histogram", "histogram(x) -> map(type of x, bigint)",
                         "How many times each non-NULL value occurs in the group.",
                         [kBig](const Types& t) -> absl::StatusOr<DataType> {
                           if (t.size() != 1) return WrongArguments("histogram(x)");
                           return Interned(MapOf(t[0], kBig));
                         },
                         [kBig](const Types& t) -> std::unique_ptr<Accumulator> {
                           return std::make_unique<MapAcc>("histogram", *MapOf(t[0], kBig),
                                                           MapAcc::Values::kCount);
                         }});
  aggregates->push_back(
      {"map_union", "map_union(map) -> map",
       "The union of the group's maps (NULLs left out; of a key in several, the first value).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 1 || KindOf(t[0]) != TypeKind::kMap)
           return WrongArguments("map_union(map)");
         return t[0];
       },
       [](const Types& t) -> std::unique_ptr<Accumulator> {
         return std::make_unique<MapAcc>("map_union", t[0], MapAcc::Values::kFirst,
                                         /*of_maps=*/true);
       }});
  aggregates->push_back(
      {"multimap_agg", "multimap_agg(key, value) -> map(type of key, array)",
       "Each key's values (NULLs included) as an array, in the order rows arrive (rows with a "
       "NULL key left out).",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2) return WrongArguments("multimap_agg(key, value)");
         ASSIGN_OR_RETURN(DataType values, Interned(ArrayOf(t[1])));
         return Interned(MapOf(t[0], values));
       },
       [](const Types& t) -> std::unique_ptr<Accumulator> {
         return std::make_unique<MapAcc>("multimap_agg", *MapOf(t[0], *ArrayOf(t[1])),
                                         MapAcc::Values::kCollect);
       }});
}

}  // namespace strata::query
