// URL functions of Presto's (beyond Timestream's reference): the parts of a URL
// (url_extract_protocol, _host, _port, _path, _query, _fragment, _parameter) and
// the form encoding of a query's values (url_encode, url_decode), for the page
// and API addresses web and application telemetry records.
//
// A URL is read by RFC 3986's generic syntax: scheme ":" ["//" authority] path
// ["?" query] ["#" fragment]. Text that is not one (a space, a '%' without two
// hex digits, a port that is not a number) gives NULL for every part, as
// Presto's java.net.URI does; the parts are as written, not decoded.
#include <optional>

#include "absl/strings/ascii.h"
#include "common/strings.h"
#include "common/utf8.h"
#include "query/functions/function_families.h"

namespace strata::query {
namespace {

using Args = std::vector<Datum>;
using P = Param;

struct Url {
  std::optional<std::string_view> scheme, host, path, query, fragment;
  std::optional<int64_t> port;
};

bool IsHex(char c) { return HexDigitValue(c) >= 0; }

// Characters no URL has unescaped: controls, space and RFC 3986's excluded ones.
bool Excluded(unsigned char c) {
  return c <= 0x20 || c == 0x7F ||
         std::string_view("\"<>\\^`{|}").find(c) != std::string_view::npos;
}

std::optional<Url> ParseUrl(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (Excluded(static_cast<unsigned char>(text[i]))) return std::nullopt;
    if (text[i] == '%' && (i + 2 >= text.size() || !IsHex(text[i + 1]) || !IsHex(text[i + 2]))) {
      return std::nullopt;
    }
  }
  Url url;
  std::string_view rest = text;
  if (const size_t hash = rest.find('#'); hash != std::string_view::npos) {
    url.fragment = rest.substr(hash + 1);
    rest = rest.substr(0, hash);
  }
  if (const size_t question = rest.find('?'); question != std::string_view::npos) {
    url.query = rest.substr(question + 1);
    rest = rest.substr(0, question);
  }
  // A scheme is a letter, then letters, digits, '+', '-' and '.', before the first ':'.
  const size_t colon = rest.find(':');
  if (colon != std::string_view::npos && colon > 0 &&
      absl::ascii_isalpha(static_cast<unsigned char>(rest[0])) &&
      rest.substr(0, colon).find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789+-.") == std::string_view::npos) {
    url.scheme = rest.substr(0, colon);
    rest.remove_prefix(colon + 1);
  }
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    const size_t end = rest.find('/');
    std::string_view authority = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end);
    if (const size_t at = authority.rfind('@'); at != std::string_view::npos) {
      authority.remove_prefix(at + 1);  // the user's name and password
    }
    // A port follows the last ':' unless that is inside an IPv6 address's brackets.
    const size_t port = authority.rfind(':');
    if (port != std::string_view::npos && authority.find(']', port) == std::string_view::npos) {
      const std::string_view digits = authority.substr(port + 1);
      if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos) {
        return std::nullopt;
      }
      if (!digits.empty()) url.port = std::stoll(std::string(digits));
      authority = authority.substr(0, port);
    }
    if (!authority.empty()) url.host = authority;
  }
  url.path = rest;
  return url;
}

// An url_extract_* function of one part.
template <typename Part>
ScalarFunction UrlPart(std::string name, std::string doc, DataType type, Part part) {
  return {name, StrCat(name, "(varchar) -> ", TypeName(type)), std::move(doc),
          Fixed({P::kVarchar}, type, StrCat(name, "(varchar)")),
          [part, type](const Args& a, const EvalContext&) -> Datum {
            const std::optional<Url> url = ParseUrl(a[0].s);
            if (!url) return Datum::Null(type);
            return part(*url);
          }};
}

Datum TextOrNull(const std::optional<std::string_view>& part) {
  return part ? Datum::Varchar(std::string(*part)) : Datum::Null(DataType::kVarchar);
}

}  // namespace

void AddUrlFunctions(std::vector<ScalarFunction>* scalars) {
  scalars->push_back(UrlPart("url_extract_protocol", "The URL's scheme ('https'), without its ':'.",
                             kStr, [](const Url& u) { return TextOrNull(u.scheme); }));
  scalars->push_back(UrlPart("url_extract_host", "The URL's host name or address.", kStr,
                             [](const Url& u) { return TextOrNull(u.host); }));
  scalars->push_back(
      UrlPart("url_extract_port", "The URL's port; NULL when it names none.", kBig,
              [](const Url& u) { return u.port ? Datum::Bigint(*u.port) : Datum::Null(kBig); }));
  scalars->push_back(UrlPart("url_extract_path",
                             "The URL's path, as written ('' when it has none).", kStr,
                             [](const Url& u) { return TextOrNull(u.path); }));
  scalars->push_back(UrlPart("url_extract_query", "The URL's query, after its '?', as written.",
                             kStr, [](const Url& u) { return TextOrNull(u.query); }));
  scalars->push_back(UrlPart("url_extract_fragment", "The URL's fragment, after its '#'.", kStr,
                             [](const Url& u) { return TextOrNull(u.fragment); }));
  scalars->push_back(
      {"url_extract_parameter", "url_extract_parameter(varchar, name) -> varchar",
       "The value of the query's first parameter of that name, as written ('' for one with no "
       "'='); NULL when it has none.",
       Fixed({P::kVarchar, P::kVarchar}, kStr, "url_extract_parameter(varchar, varchar)"),
       [](const Args& a, const EvalContext&) {
         const std::optional<Url> url = ParseUrl(a[0].s);
         if (!url || !url->query) return Datum::Null(kStr);
         std::string_view query = *url->query;
         while (!query.empty()) {
           const size_t amp = query.find('&');
           const std::string_view pair = query.substr(0, amp);
           query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
           const size_t equals = pair.find('=');
           if (pair.substr(0, equals) != a[1].s) continue;
           return Datum::Varchar(
               equals == std::string_view::npos ? "" : std::string(pair.substr(equals + 1)));
         }
         return Datum::Null(kStr);
       }});
  scalars->push_back(
      {"url_encode", "url_encode(varchar) -> varchar",
       "The text escaped for a URL's query: letters, digits and -_.* kept, a space as '+', every "
       "other byte of its UTF-8 as %XX.",
       Fixed({P::kVarchar}, kStr, "url_encode(varchar)"), [](const Args& a, const EvalContext& c) {
         if (a[0].s.size() > kMaxTextBytes / 3) {
           return FailQuery(c, TextTooLongMessage("url_encode()"), kStr);
         }
         std::string out;
         for (const unsigned char ch : a[0].s) {
           if (absl::ascii_isalpha(ch) || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' ||
               ch == '.' || ch == '*') {
             out.push_back(static_cast<char>(ch));
           } else if (ch == ' ') {
             out.push_back('+');
           } else {
             static constexpr char kHex[] = "0123456789ABCDEF";
             out += {'%', kHex[ch >> 4], kHex[ch & 15]};
           }
         }
         return Datum::Varchar(std::move(out));
       }});
  scalars->back().can_fail = true;
  scalars->push_back(
      {"url_decode", "url_decode(varchar) -> varchar",
       "The text url_encode (or a form) escaped: %XX as its byte, '+' as a space; bytes that are "
       "not UTF-8 become U+FFFD.",
       Fixed({P::kVarchar}, kStr, "url_decode(varchar)"), [](const Args& a, const EvalContext& c) {
         const std::string& s = a[0].s;
         std::string out;
         for (size_t i = 0; i < s.size(); ++i) {
           if (s[i] == '+') {
             out.push_back(' ');
           } else if (s[i] != '%') {
             out.push_back(s[i]);
           } else if (i + 2 < s.size() && IsHex(s[i + 1]) && IsHex(s[i + 2])) {
             out.push_back(
                 static_cast<char>(HexDigitValue(s[i + 1]) * 16 + HexDigitValue(s[i + 2])));
             i += 2;
           } else {
             return FailQuery(c,
                              StrCat("url_decode(): '", EchoInput(s),
                                     "' has a '%' not followed by two hex digits (write % as %25)"),
                              kStr);
           }
         }
         return Datum::Varchar(ToValidUtf8(out));
       }});
  scalars->back().can_fail = true;
}

}  // namespace strata::query
