#include "server/pg/startup_options.h"

#include <cctype>

#include "common/strings.h"
#include "common/utf8.h"

namespace strata::pg {
namespace {

// `options` cut at unescaped whitespace, backslashes taken out.
std::vector<std::string> Words(std::string_view options) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < options.size(); ++i) {
    const char c = options[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\' && i + 1 < options.size()) {
      word.push_back(options[++i]);
    } else {
      word.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

}  // namespace

std::optional<std::vector<std::pair<std::string, std::string>>> ParseStartupOptions(
    std::string_view options, std::string* error) {
  std::vector<std::pair<std::string, std::string>> settings;
  const std::vector<std::string> words = Words(options);
  for (size_t i = 0; i < words.size(); ++i) {
    std::string setting;
    if (words[i] == "-c" && i + 1 < words.size()) {
      setting = words[++i];
    } else if (words[i].size() > 2 && words[i].starts_with("-c")) {
      setting = words[i].substr(2);
    } else if (words[i].size() > 2 && words[i].starts_with("--")) {
      setting = words[i].substr(2);
    } else {
      *error = StrCat("the startup options' \"", EchoInput(words[i]),
                      "\" is not a setting; write -c name=value");
      return std::nullopt;
    }
    const size_t equals = setting.find('=');
    if (equals == std::string::npos || equals == 0) {
      *error = StrCat("the startup options' \"", EchoInput(setting),
                      "\" sets nothing; write -c name=value");
      return std::nullopt;
    }
    std::string name = setting.substr(0, equals);
    for (char& c : name) {
      c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    settings.emplace_back(std::move(name), setting.substr(equals + 1));
  }
  return settings;
}

}  // namespace strata::pg
