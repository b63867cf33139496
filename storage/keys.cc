#include "storage/keys.h"

#include "common/strings.h"
#include "common/coding.h"

namespace strata::keys {

using namespace std::string_view_literals;

std::string Database(std::string_view database) { return StrCat("d\0"sv, database); }
std::string DatabasePrefix() { return std::string("d\0"sv); }
std::string Table(std::string_view database, std::string_view table) {
  return StrCat("t\0"sv, database, "\0"sv, table);
}
std::string TablePrefix() { return std::string("t\0"sv); }
std::string Counter(std::string_view name) { return StrCat("n\0"sv, name); }

std::string TableCatalogPrefix(uint32_t table_id) {
  std::string key = "x";
  PutFixed32BE(&key, table_id);
  return key;
}

std::string TableDataPrefix(uint32_t table_id) {
  std::string key;
  PutFixed32BE(&key, table_id);
  return key;
}

std::string PrefixEnd(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(end.back());
    if (last != 0xff) {
      ++last;
      return end;
    }
    end.pop_back();
  }
  return end;  // all 0xff: no upper bound; callers treat "" as "to the end"
}

}  // namespace strata::keys
