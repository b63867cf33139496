#include "query/parse/session_zone.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "common/strings.h"
#include "common/time_format.h"
#include "query/base/time_zone.h"

namespace strata::query {
namespace {

// Calls whose first argument's calendar fields they read (a timestamp's; a date, a time of
// day, an interval or text read as before: wall_clock passes them on).
bool ReadsWallClock(std::string_view name) {
  static constexpr std::string_view kNames[] = {"year",         "quarter",      "month",
                                                "week",         "week_of_year", "day",
                                                "day_of_month", "day_of_week",  "dow",
                                                "day_of_year",  "doy",          "hour",
                                                "minute",       "second",       "year_of_week",
                                                "yow",          "date",         "last_day_of_month",
                                                "to_char",      "date_format",  "format_datetime"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// A pattern that reads an offset from the text (to_timestamp's TZH, parse_datetime's Z)
// names its zone; without one, the text is a wall-clock time.
bool PatternNamesZone(const Expr& pattern) {
  if (pattern.kind != ExprKind::kLiteral || pattern.literal.type != DataType::kVarchar) {
    return true;  // unknown until it runs: left as it was
  }
  const std::string& p = pattern.literal.s;
  return p.find("TZ") != std::string::npos || p.find("tz") != std::string::npos ||
         p.find("OF") != std::string::npos || p.find('Z') != std::string::npos ||
         p.find("%z") != std::string::npos;
}

class Writer {
 public:
  explicit Writer(const SessionZone& zone) : zone_(zone) {}

  ExprPtr Node(ExprKind kind, const Expr& at, std::string name) const {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->pos = at.pos;
    e->name = std::move(name);
    e->session_zone = zone_;
    return e;
  }

  ExprPtr ZoneName(const Expr& at) const {
    ExprPtr e = Node(ExprKind::kLiteral, at, "");
    e->literal = Datum::Varchar(*zone_);
    return e;
  }

  // name(arg, 'zone')
  ExprPtr WithZone(std::string name, ExprPtr arg) const {
    ExprPtr call = Node(ExprKind::kCall, *arg, std::move(name));
    call->height = arg->height + 1;
    call->args.push_back(std::move(arg));
    call->args.push_back(ZoneName(*call));
    return call;
  }

  ExprPtr Wrapped(std::string name, ExprPtr arg) const {
    ExprPtr call = Node(ExprKind::kCall, *arg, std::move(name));
    call->height = arg->height + 1;
    call->args.push_back(std::move(arg));
    return call;
  }

  ExprPtr WallClock(ExprPtr e) const { return WithZone("wall_clock", std::move(e)); }
  ExprPtr Instant(ExprPtr e) const { return WithZone("from_wall_clock", std::move(e)); }

  // The call's argument at `i` read as the wall clock (its height kept right).
  void WallClockArg(Expr& call, size_t i) const {
    call.args[i] = WallClock(std::move(call.args[i]));
    call.height = std::max(call.height, call.args[i]->height + 1);
  }

  // date_trunc(unit, t), current_date and current_time take the zone as their last argument.
  static bool TakesTheZoneLast(std::string_view name, size_t n) {
    return (name == "date_trunc" && n == 2) ||
           ((name == "current_date" || name == "current_time") && n == 0);
  }

  ExprPtr Call(ExprPtr e) const {
    if (e->window || e->distinct || e->ordered_by) return e;
    const std::string& name = e->name;
    const size_t n = e->args.size();
    if (name == "current_timezone" && n == 0) return ZoneName(*e);
    if (ReadsWallClock(name) && n >= 1) {
      WallClockArg(*e, 0);
      return e;
    }
    if (TakesTheZoneLast(name, n)) {
      e->args.push_back(ZoneName(*e));
      return e;
    }
    if ((name == "at_timezone" && n == 2) || (name == "timezone" && n == 2)) {
      return Instant(std::move(e));
    }
    if (name == "with_timezone" && n == 2) {
      WallClockArg(*e, 0);
      return e;
    }
    if (name == "make_timestamp" && n == 6) return Instant(std::move(e));
    if (name == "make_timestamptz" && n == 6) {
      e->args.push_back(ZoneName(*e));
      return e;
    }
    if ((name == "to_timestamp" || name == "date_parse" || name == "parse_datetime") && n == 2 &&
        !PatternNamesZone(*e->args[1])) {
      return Instant(std::move(e));
    }
    return e;
  }

  ExprPtr CastNode(ExprPtr e) const {
    if (e->args.size() != 1) return e;
    const DataType to = e->cast_type;
    if (to == DataType::kDate || to == DataType::kTime || to == DataType::kVarchar) {
      WallClockArg(*e, 0);
      return e;
    }
    if (to != DataType::kTimestamp) return e;
    ExprPtr value = WithZone("timestamp_in_zone", std::move(e->args[0]));
    return e->name == "try_cast" ? Wrapped("try", std::move(value)) : std::move(value);
  }

 private:
  const SessionZone& zone_;
};

}  // namespace

SessionZone MakeSessionZone(std::string_view name) {
  if (name.empty() || NamesUtc(name) || !LoadTimeZone(name)) return nullptr;
  return std::make_shared<const std::string>(name);
}

ExprPtr InSessionZone(ExprPtr e, const SessionZone& zone) {
  if (zone == nullptr || e == nullptr) return e;
  const Writer writer(zone);
  if (e->kind == ExprKind::kCall) return writer.Call(std::move(e));
  if (e->kind == ExprKind::kCast) return writer.CastNode(std::move(e));
  return e;
}

bool WrittenForSessionZone(const Expr& e) {
  return e.kind == ExprKind::kCall && e.session_zone != nullptr && e.args.size() == 2 &&
         (e.name == "wall_clock" || e.name == "from_wall_clock" || e.name == "timestamp_in_zone") &&
         e.args[1]->kind == ExprKind::kLiteral && e.args[1]->literal.type == DataType::kVarchar &&
         e.args[1]->literal.s == *e.session_zone;
}

std::optional<int64_t> TimestampTextInZone(std::string_view text, const SessionZone& zone) {
  const std::optional<int64_t> parsed = ParseTimestamp(text);
  if (!parsed || zone == nullptr || NamesItsZone(text)) return parsed;
  const std::optional<absl::TimeZone> loaded = LoadTimeZone(*zone);
  if (!loaded) return parsed;
  return InstantOfWallClock(*parsed, *loaded);
}

}  // namespace strata::query
