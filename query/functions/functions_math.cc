// Math functions of Timestream's reference beyond the basics in
// functions.cc: constants, random numbers and UUIDs, truncation, trigonometry,
// width_bucket, bitwise operations and number bases.
#include <sodium.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <random>

#include "absl/strings/escaping.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "query/base/checked_math.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Types = std::vector<DataType>;
using Args = std::vector<Datum>;
using P = Param;

// The base of from_base and to_base, or the error.
bool ValidRadix(std::string_view function, int64_t radix, const EvalContext& c, DataType type) {
  if (radix >= 2 && radix <= 36) return true;
  FailQuery(c, StrCat(function, "(): the radix ", radix, " is not between 2 and 36"), type);
  return false;
}

// The magnitude of x (INT64_MIN's too).
uint64_t Magnitude(int64_t x) { return x < 0 ? 0 - static_cast<uint64_t>(x) : x; }

// PostgreSQL's gcd, lcm and div of integers.
void AddIntegerDivisionFunctions(std::vector<ScalarFunction>* scalars) {
  auto add = CanFailAdder(scalars);
  const auto out_of_range = [](std::string_view function, const EvalContext& c) {
    return FailQuery(c, StrCat(function, "(): the answer is outside the range of bigint"), kBig);
  };
  add({"gcd", "gcd(bigint, bigint) -> bigint",
       "The greatest common divisor (never negative; gcd(0, 0) is 0).",
       Fixed({P::kBigint, P::kBigint}, kBig, "gcd(bigint, bigint)"),
       [out_of_range](const Args& a, const EvalContext& c) {
         const uint64_t g = std::gcd(Magnitude(a[0].i), Magnitude(a[1].i));
         if (g > static_cast<uint64_t>(INT64_MAX)) return out_of_range("gcd", c);
         return Datum::Bigint(static_cast<int64_t>(g));
       }});
  add({"factorial", "factorial(bigint) -> bigint",
       "n! (PostgreSQL's): factorial(5) is 120, factorial(0) 1; a negative n, or one past 20 "
       "(beyond bigint), fails the query.",
       Fixed({P::kBigint}, kBig, "factorial(bigint)"),
       [out_of_range](const Args& a, const EvalContext& c) {
         if (a[0].i < 0) {
           return FailQuery(
               c, StrCat("factorial(): ", a[0].i, " is negative; a factorial is of 0 or more"),
               kBig);
         }
         if (a[0].i > 20) return out_of_range("factorial", c);
         int64_t product = 1;
         for (int64_t i = 2; i <= a[0].i; ++i) product *= i;
         return Datum::Bigint(product);
       }});
  add({"lcm", "lcm(bigint, bigint) -> bigint",
       "The least common multiple (never negative; 0 if either is 0); past the range of "
       "bigint fails the query.",
       Fixed({P::kBigint, P::kBigint}, kBig, "lcm(bigint, bigint)"),
       [out_of_range](const Args& a, const EvalContext& c) {
         if (a[0].i == 0 || a[1].i == 0) return Datum::Bigint(0);
         const uint64_t x = Magnitude(a[0].i), y = Magnitude(a[1].i);
         uint64_t l = 0;
         if (__builtin_mul_overflow(x / std::gcd(x, y), y, &l) ||
             l > static_cast<uint64_t>(INT64_MAX)) {
           return out_of_range("lcm", c);
         }
         return Datum::Bigint(static_cast<int64_t>(l));
       }});
  add({"div", "div(n, m) -> bigint | double",
       "The quotient n / m truncated toward zero (PostgreSQL's): div(-7, 2) is -3; m = 0 fails "
       "the query.",
       [](const Types& t) -> absl::StatusOr<DataType> {
         if (t.size() != 2 || !Accepts(P::kNumeric, t[0]) || !Accepts(P::kNumeric, t[1])) {
           return WrongArguments("div(number, number)");
         }
         return t[0] == kBig && t[1] == kBig ? kBig : kDbl;
       },
       [out_of_range](const Args& a, const EvalContext& c) {
         const bool integers = a[0].type == kBig && a[1].type == kBig;
         const DataType type = integers ? kBig : kDbl;
         if (a[1].AsDouble() == 0) return FailQuery(c, std::string(kDivisionByZero), type);
         if (!integers) return Datum::Double(std::trunc(a[0].AsDouble() / a[1].AsDouble()));
         if (a[0].i == INT64_MIN && a[1].i == -1) return out_of_range("div", c);
         return Datum::Bigint(a[0].i / a[1].i);
       }});
}

}  // namespace

std::mt19937_64& ThreadRandom() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

void AddMathFunctions(std::vector<ScalarFunction>* scalars) {
  auto add = [scalars](ScalarFunction f) { scalars->push_back(std::move(f)); };

  add({"pi", "pi() -> double", "The constant π.", Fixed({}, kDbl, "pi()"),
       [](const Args&, const EvalContext&) { return Datum::Double(std::numbers::pi); }});
  add({"e", "e() -> double", "Euler's number.", Fixed({}, kDbl, "e()"),
       [](const Args&, const EvalContext&) { return Datum::Double(std::numbers::e); }});
  for (std::string name : {"random", "rand"}) {
    add({name, StrCat(name, "([n]) -> double | bigint"),
         "A random double in [0, 1), or with n a random bigint in [0, n); a new value per row.",
         [name](const Types& t) -> absl::StatusOr<DataType> {
           if (t.size() > 1 || (t.size() == 1 && !Accepts(P::kBigint, t[0]))) {
             return WrongArguments(StrCat(name, "([bigint])"));
           }
           return t.empty() ? kDbl : kBig;
         },
         [name](const Args& a, const EvalContext& c) {
           if (a.empty()) {
             return Datum::Double(std::uniform_real_distribution<double>(0, 1)(ThreadRandom()));
           }
           if (a[0].i <= 0) {
             return FailQuery(c, StrCat(name, "(): the bound ", a[0].i, " must be positive"), kBig);
           }
           return Datum::Bigint(
               std::uniform_int_distribution<int64_t>(0, a[0].i - 1)(ThreadRandom()));
         }});
    scalars->back().can_fail = true;
    scalars->back().volatile_value = true;
  }
  // A version 4 (random) UUID as its text, from libsodium's generator: random() and shuffle's
  // engine is seeded with 32 bits per thread, too few for identifiers meant never to repeat.
  // gen_random_uuid is PostgreSQL's name; Strata has no UUID type.
  for (std::string name : {"uuid", "gen_random_uuid"}) {
    add({name, StrCat(name, "() -> varchar"),
         "A random (version 4) UUID as its text, '8-4-4-4-12' lower-case hex digits; a new "
         "value per row.",
         Fixed({}, kStr, StrCat(name, "()")), [](const Args&, const EvalContext&) {
           unsigned char bytes[16];
           randombytes_buf(bytes, sizeof bytes);
           bytes[6] = (bytes[6] & 0x0F) | 0x40;  // the version, 4
           bytes[8] = (bytes[8] & 0x3F) | 0x80;  // RFC 9562's variant
           const std::string hex = absl::BytesToHexString(
               absl::string_view(reinterpret_cast<const char*>(bytes), sizeof bytes));
           return Datum::Varchar(StrCat(hex.substr(0, 8), "-", hex.substr(8, 4), "-",
                                        hex.substr(12, 4), "-", hex.substr(16, 4), "-",
                                        hex.substr(20)));
         }});
    scalars->back().volatile_value = true;
  }
  // trunc is PostgreSQL's name.
  for (const std::string name : {"truncate", "trunc"}) {
    add({name, StrCat(name, "(x [, digits]) -> same type"),
         name == "trunc"
             ? "PostgreSQL's name of truncate: trunc(2.567, 1) is 2.5."
             : "x with its fraction (or the digits past `digits` after the point) dropped, "
               "toward zero.",
         [name](const Types& t) -> absl::StatusOr<DataType> {
           if (t.empty() || t.size() > 2 || !Accepts(P::kNumeric, t[0]) ||
               (t.size() == 2 && !Accepts(P::kBigint, t[1]))) {
             return WrongArguments(StrCat(name, "(number [, bigint])"));
           }
           return t[0] == DataType::kUnknown ? kDbl : t[0];
         },
         [](const Args& a, const EvalContext&) {
           if (a[0].type == kBig) return a[0];
           if (a.size() < 2 || a[1].i == 0) return Datum::Double(std::trunc(a[0].d));
           const double scale = std::pow(10.0, static_cast<double>(a[1].i));
           return Datum::Double(std::trunc(a[0].d * scale) / scale);
         }});
  }
  for (auto [name, doc, fn] :
       {std::tuple{"cbrt", "Cube root.", +[](double x) { return std::cbrt(x); }},
        std::tuple{"degrees", "Radians to degrees.", +[](double x) { return x * 180 / std::numbers::pi; }},
        std::tuple{"radians", "Degrees to radians.", +[](double x) { return x * std::numbers::pi / 180; }},
        std::tuple{"sin", "Sine (radians).", +[](double x) { return std::sin(x); }},
        std::tuple{"cos", "Cosine (radians).", +[](double x) { return std::cos(x); }},
        std::tuple{"tan", "Tangent (radians).", +[](double x) { return std::tan(x); }},
        std::tuple{"asin", "Arc sine, in radians (NaN outside [-1, 1]).", +[](double x) { return std::asin(x); }},
        std::tuple{"acos", "Arc cosine, in radians (NaN outside [-1, 1]).", +[](double x) { return std::acos(x); }},
        std::tuple{"atan", "Arc tangent, in radians.", +[](double x) { return std::atan(x); }},
        std::tuple{"sinh", "Hyperbolic sine.", +[](double x) { return std::sinh(x); }},
        std::tuple{"cosh", "Hyperbolic cosine.", +[](double x) { return std::cosh(x); }},
        std::tuple{"tanh", "Hyperbolic tangent.", +[](double x) { return std::tanh(x); }}}) {
    auto f = fn;
    add({name, StrCat(name, "(x) -> double"), doc, Fixed({P::kNumeric}, kDbl, StrCat(name, "(number)")),
         [f](const Args& a, const EvalContext&) { return Datum::Double(f(a[0].AsDouble())); }});
  }
  add({"atan2", "atan2(y, x) -> double", "The angle of the point (x, y), in radians.",
       Fixed({P::kNumeric, P::kNumeric}, kDbl, "atan2(number, number)"),
       [](const Args& a, const EvalContext&) {
         return Datum::Double(std::atan2(a[0].AsDouble(), a[1].AsDouble()));
       }});
  add({"log", "log([base,] x) -> double",
       "The logarithm of x in the base; with x alone, in base 10 (PostgreSQL's log(x)).",
       Fixed({P::kNumeric, P::kNumeric}, kDbl, "log([number,] number)", 1),
       [](const Args& a, const EvalContext&) {
         if (a.size() == 1) return Datum::Double(std::log10(a[0].AsDouble()));
         return Datum::Double(std::log(a[1].AsDouble()) / std::log(a[0].AsDouble()));
       }});
  add({"is_finite", "is_finite(double) -> boolean", "True unless infinite or NaN.",
       Fixed({P::kNumeric}, kBool, "is_finite(double)"),
       [](const Args& a, const EvalContext&) { return Datum::Bool(std::isfinite(a[0].AsDouble())); }});
  add({"is_infinite", "is_infinite(double) -> boolean", "True for positive or negative infinity.",
       Fixed({P::kNumeric}, kBool, "is_infinite(double)"),
       [](const Args& a, const EvalContext&) { return Datum::Bool(std::isinf(a[0].AsDouble())); }});
  add({"width_bucket", "width_bucket(x, low, high, buckets) -> bigint",
       "The bucket (1 to buckets) of x in equal buckets from low to high; 0 below, buckets + 1 "
       "above.",
       Fixed({P::kNumeric, P::kNumeric, P::kNumeric, P::kBigint}, kBig,
             "width_bucket(number, number, number, bigint)"),
       [](const Args& a, const EvalContext& c) {
         const double x = a[0].AsDouble(), low = a[1].AsDouble(), high = a[2].AsDouble();
         const int64_t n = a[3].i;
         if (n <= 0) return FailQuery(c, "width_bucket(): the bucket count must be positive", kBig);
         if (!std::isfinite(x) || !std::isfinite(low) || !std::isfinite(high) || low == high) {
           return FailQuery(c, "width_bucket(): x and the bounds must be finite, and the bounds "
                               "different", kBig);
         }
         const bool ascending = low < high;
         if (ascending ? x < low : x > low) return Datum::Bigint(0);
         if (ascending ? x >= high : x <= high) {
           if (n == std::numeric_limits<int64_t>::max()) {
             return FailQuery(c, "width_bucket(): the bucket past the last does not fit a bigint", kBig);
           }
           return Datum::Bigint(n + 1);
         }
         const double bucket = std::floor((x - low) / (high - low) * static_cast<double>(n));
         return Datum::Bigint(std::min<int64_t>(n, static_cast<int64_t>(bucket) + 1));
       }});
  scalars->back().can_fail = true;

  for (auto [name, doc, fn] :
       {std::tuple{"bitwise_and", "Bitwise AND of two bigints.", +[](int64_t x, int64_t y) { return x & y; }},
        std::tuple{"bitwise_or", "Bitwise OR of two bigints.", +[](int64_t x, int64_t y) { return x | y; }},
        std::tuple{"bitwise_xor", "Bitwise XOR of two bigints.", +[](int64_t x, int64_t y) { return x ^ y; }}}) {
    auto f = fn;
    add({name, StrCat(name, "(x, y) -> bigint"), doc,
         Fixed({P::kBigint, P::kBigint}, kBig, StrCat(name, "(bigint, bigint)")),
         [f](const Args& a, const EvalContext&) { return Datum::Bigint(f(a[0].i, a[1].i)); }});
  }
  // Presto's shifts (a shift by 64 or more leaves no bits, or only the sign's for the
  // arithmetic right shift); x << n and x >> n (arithmetic, PostgreSQL's) are two of them.
  for (auto [name, doc, fn] :
       {std::tuple{"bitwise_left_shift", "x shifted left by n bits (x << n).",
                   +[](int64_t x, int64_t n) -> int64_t {
                     return n >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(x) << n);
                   }},
        std::tuple{"bitwise_right_shift", "x shifted right by n bits, zeros shifted in.",
                   +[](int64_t x, int64_t n) -> int64_t {
                     return n >= 64 ? 0 : static_cast<int64_t>(static_cast<uint64_t>(x) >> n);
                   }},
        std::tuple{
            "bitwise_right_shift_arithmetic",
            "x shifted right by n bits, the sign shifted in (x >> n).",
            +[](int64_t x, int64_t n) -> int64_t { return x >> std::min<int64_t>(n, 63); }}}) {
    auto f = fn;
    const std::string function = name;  // clang before 16 cannot capture a structured binding
    add({function, StrCat(function, "(x, n) -> bigint"), doc,
         Fixed({P::kBigint, P::kBigint}, kBig, StrCat(function, "(bigint, bigint)")),
         [f, function](const Args& a, const EvalContext& c) {
           if (a[1].i < 0) {
             return FailQuery(
                 c, StrCat(function, "(): a shift by ", a[1].i, " bits; it cannot be negative"),
                 kBig);
           }
           return Datum::Bigint(f(a[0].i, a[1].i));
         }});
    scalars->back().can_fail = true;
  }
  add({"bitwise_not", "bitwise_not(x) -> bigint", "Bitwise NOT (two's complement).",
       Fixed({P::kBigint}, kBig, "bitwise_not(bigint)"),
       [](const Args& a, const EvalContext&) { return Datum::Bigint(~a[0].i); }});
  add({"bit_count", "bit_count(x, bits) -> bigint",
       "The set bits of x as a two's complement number of `bits` bits (2 to 64).",
       Fixed({P::kBigint, P::kBigint}, kBig, "bit_count(bigint, bigint)"),
       [](const Args& a, const EvalContext& c) {
         const int64_t x = a[0].i, bits = a[1].i;
         if (bits < 2 || bits > 64) {
           return FailQuery(c, StrCat("bit_count(): bits must be 2 to 64, not ", bits), kBig);
         }
         if (bits < 64) {
           const int64_t low = -(int64_t{1} << (bits - 1)), high = (int64_t{1} << (bits - 1)) - 1;
           if (x < low || x > high) {
             return FailQuery(c, StrCat("bit_count(): ", x, " does not fit ", bits, " bits"), kBig);
           }
         }
         const uint64_t mask = bits == 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
         return Datum::Bigint(std::popcount(static_cast<uint64_t>(x) & mask));
       }});
  scalars->back().can_fail = true;
  add({"to_base", "to_base(x, radix) -> varchar", "x written in the radix (2 to 36).",
       Fixed({P::kBigint, P::kBigint}, kStr, "to_base(bigint, bigint)"),
       [](const Args& a, const EvalContext& c) {
         if (!ValidRadix("to_base", a[1].i, c, kStr)) return Datum::Null(kStr);
         const bool negative = a[0].i < 0;
         // Through unsigned so the most negative bigint has a magnitude.
         uint64_t v = negative ? 0 - static_cast<uint64_t>(a[0].i) : static_cast<uint64_t>(a[0].i);
         std::string digits;
         do {
           digits.insert(digits.begin(), "0123456789abcdefghijklmnopqrstuvwxyz"[v % a[1].i]);
           v /= static_cast<uint64_t>(a[1].i);
         } while (v != 0);
         return Datum::Varchar(negative ? "-" + digits : digits);
       }});
  scalars->back().can_fail = true;
  add({"from_base", "from_base(varchar, radix) -> bigint", "The number the text writes in the radix.",
       Fixed({P::kVarchar, P::kBigint}, kBig, "from_base(varchar, bigint)"),
       [](const Args& a, const EvalContext& c) {
         if (!ValidRadix("from_base", a[1].i, c, kBig)) return Datum::Null(kBig);
         errno = 0;
         char* end = nullptr;
         const long long v = std::strtoll(a[0].s.c_str(), &end, static_cast<int>(a[1].i));
         if (a[0].s.empty() || *end != '\0' || errno == ERANGE ||
             std::isspace(static_cast<unsigned char>(a[0].s[0]))) {
           return FailQuery(c, StrCat("from_base(): '", EchoInput(a[0].s), "' is not a bigint in radix ",
                                      a[1].i), kBig);
         }
         return Datum::Bigint(v);
       }});
  scalars->back().can_fail = true;
  AddIntegerDivisionFunctions(scalars);
}

}  // namespace strata::query
