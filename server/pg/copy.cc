#include "server/pg/copy.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "absl/strings/ascii.h"
#include "common/strings.h"
#include "server/pg/types.h"

namespace strata::pg {
namespace {

constexpr std::string_view kForm =
    "COPY (query) TO STDOUT [WITH] [(FORMAT text | csv, HEADER, DELIMITER 'c', NULL 'text', "
    "QUOTE 'c', ESCAPE 'c')], COPY table [(column, ...)] TO STDOUT ... or COPY table "
    "[(column, ...)] FROM STDIN ...";

absl::Status Malformed(std::string_view what) {
  return absl::InvalidArgumentError(StrCat("malformed COPY: ", what, "; write ", kForm));
}

// The tokens of a COPY statement: bare words in lower case, "quoted" names and 'strings'
// as written (their quotes doubled inside), and ( ) , each alone; each with where it starts
// and ends in the text.
struct Token {
  enum Kind { kWord, kQuotedName, kString, kSymbol } kind = kWord;
  std::string text;
  size_t begin = 0, end = 0;
};

class Tokens {
 public:
  explicit Tokens(std::string_view sql) : sql_(sql) {}

  std::optional<Token> Next() {
    while (at_ < sql_.size() && std::isspace(static_cast<unsigned char>(sql_[at_]))) ++at_;
    if (at_ >= sql_.size() || sql_[at_] == ';') return std::nullopt;
    Token t{.begin = at_};
    const char c = sql_[at_];
    if (c == '(' || c == ')' || c == ',' || c == '.') {
      t.kind = Token::kSymbol;
      t.text = std::string(1, c);
      ++at_;
    } else if (c == '"' || c == '\'') {
      t.kind = c == '"' ? Token::kQuotedName : Token::kString;
      for (++at_;; ++at_) {
        if (at_ >= sql_.size()) return std::nullopt;  // unterminated
        if (sql_[at_] == c) {
          if (at_ + 1 < sql_.size() && sql_[at_ + 1] == c) {
            t.text.push_back(c);
            ++at_;
            continue;
          }
          ++at_;
          break;
        }
        t.text.push_back(sql_[at_]);
      }
    } else {
      while (at_ < sql_.size() && !std::isspace(static_cast<unsigned char>(sql_[at_])) &&
             std::string_view("();,.'\"").find(sql_[at_]) == std::string_view::npos) {
        t.text.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(sql_[at_++]))));
      }
    }
    t.end = at_;
    return t;
  }
  std::optional<Token> Peek() {
    const size_t saved = at_;
    std::optional<Token> t = Next();
    at_ = saved;
    return t;
  }
  bool Accept(std::string_view text) {
    std::optional<Token> t = Peek();
    if (!t || (t->kind != Token::kWord && t->kind != Token::kSymbol) || t->text != text) {
      return false;
    }
    Next();
    return true;
  }
  // The text from `begin` to the ")" that closes the "(" before it; the tokens go on after
  // that ")". nullopt when none closes it.
  std::optional<std::string_view> UpToClosing(size_t begin) {
    int depth = 1;
    for (std::optional<Token> t = Next(); t; t = Next()) {
      if (t->kind != Token::kSymbol) continue;
      if (t->text == "(") ++depth;
      if (t->text == ")" && --depth == 0) return sql_.substr(begin, t->begin - begin);
    }
    return std::nullopt;
  }
  size_t at() const { return at_; }

 private:
  std::string_view sql_;
  size_t at_ = 0;
};

// A one-character option's value.
absl::StatusOr<char> OneCharacter(std::string_view option, const std::optional<Token>& value) {
  if (!value || value->kind != Token::kString || value->text.size() != 1) {
    return Malformed(StrCat(option, " takes one character in quotes"));
  }
  return value->text[0];
}

// The options given, so CSV's defaults fill only the others.
struct Given {
  bool delimiter = false, null_text = false, escape = false;
};

// An option and its value, as WITH (...) and the older spelling both name them. `tokens`
// is at the value (if the option has one).
absl::Status ApplyOption(const std::string& name, Tokens& tokens, CopyStatement* copy,
                         Given* given) {
  const auto value = [&]() -> std::optional<Token> {
    tokens.Accept("as");
    return tokens.Next();
  };
  if (name == "format") {
    std::optional<Token> format = value();
    if (format && format->text == "csv") {
      copy->csv = true;
    } else if (format && format->text == "binary") {
      return absl::UnimplementedError("COPY's binary format is not supported; use text or csv");
    } else if (!format || format->text != "text") {
      return Malformed("FORMAT is text or csv");
    }
  } else if (name == "csv") {
    copy->csv = true;
  } else if (name == "binary") {
    return absl::UnimplementedError("COPY's binary format is not supported; use text or csv");
  } else if (name == "header") {
    // HEADER alone, or with true / false (and PostgreSQL's other words for them).
    std::optional<Token> next = tokens.Peek();
    std::optional<bool> on =
        next && next->kind == Token::kWord ? ParseBooleanText(next->text) : std::nullopt;
    if (on) tokens.Next();
    copy->header = on.value_or(true);
  } else if (name == "delimiter") {
    ASSIGN_OR_RETURN(copy->delimiter, OneCharacter("DELIMITER", value()));
    given->delimiter = true;
  } else if (name == "null") {
    std::optional<Token> text = value();
    if (!text || text->kind != Token::kString) return Malformed("NULL takes a text in quotes");
    copy->null_text = text->text;
    given->null_text = true;
  } else if (name == "quote") {
    ASSIGN_OR_RETURN(copy->quote, OneCharacter("QUOTE", value()));
  } else if (name == "escape") {
    ASSIGN_OR_RETURN(copy->escape, OneCharacter("ESCAPE", value()));
    given->escape = true;
  } else if (name == "encoding") {
    std::optional<Token> encoding = value();
    if (!encoding ||
        (!EqualsIgnoreCase(encoding->text, "utf8") && !EqualsIgnoreCase(encoding->text, "utf-8"))) {
      return absl::UnimplementedError("COPY writes UTF8 only; leave ENCODING out");
    }
  } else if (name == "force" || name == "force_quote" || name == "force_not_null" ||
             name == "force_null") {
    return absl::UnimplementedError(
        StrCat("COPY's ", absl::AsciiStrToUpper(name), " is not supported"));
  } else {
    return Malformed(StrCat("unknown option ", name));
  }
  return absl::OkStatus();
}

// STDIN after FROM, STDOUT after TO: the client's side. A server file or program is refused
// saying what to use.
absl::Status ExpectTheClient(Tokens& tokens, bool from) {
  if (tokens.Accept(from ? "stdin" : "stdout")) return absl::OkStatus();
  std::optional<Token> target = tokens.Peek();
  if (target && (target->kind == Token::kString || target->text == "program")) {
    return absl::UnimplementedError(StrCat(
        "COPY ", from ? "FROM" : "TO", " a server file or program is not supported; COPY ... ",
        from ? "FROM STDIN (psql's \\copy) reads" : "TO STDOUT (psql's \\copy) writes",
        " the rows where the client is"));
  }
  return Malformed(from ? "FROM STDIN is missing" : "TO STDOUT is missing");
}

absl::StatusOr<CopyStatement> Parse(std::string_view sql, Tokens& tokens) {
  CopyStatement copy;
  if (tokens.Accept("(")) {
    const size_t begin = tokens.at();
    std::optional<std::string_view> query = tokens.UpToClosing(begin);
    if (!query) return Malformed("the query's parenthesis is not closed");
    copy.query = std::string(*query);
    copy.query_offset = begin;
    // Only a read: COPY (DELETE ...) TO STDOUT would change the table it is asked to export.
    Tokens inner(copy.query);
    std::optional<Token> verb = inner.Next();
    while (verb && verb->kind == Token::kSymbol && verb->text == "(") verb = inner.Next();
    if (!verb || verb->kind != Token::kWord ||
        (verb->text != "select" && verb->text != "with" && verb->text != "values")) {
      return Malformed("COPY (query) takes a SELECT, WITH or VALUES query");
    }
  } else {
    // A table, and its columns: their text as written becomes SELECT columns FROM table.
    std::optional<Token> first = tokens.Next();
    if (!first || (first->kind != Token::kWord && first->kind != Token::kQuotedName)) {
      return Malformed("COPY names a table or (a query)");
    }
    size_t table_end = first->end;
    while (tokens.Accept(".")) {
      std::optional<Token> part = tokens.Next();
      if (!part || part->kind == Token::kSymbol) return Malformed("a table name ends in '.'");
      table_end = part->end;
    }
    std::optional<std::string_view> columns;
    if (tokens.Accept("(")) {
      const size_t begin = tokens.at();
      columns = tokens.UpToClosing(begin);
      if (!columns) return Malformed("the column list's parenthesis is not closed");
    }
    const std::string_view table = sql.substr(first->begin, table_end - first->begin);
    if (tokens.Accept("from")) {
      // Strata's COPY FROM STDIN of the same table and columns; the rows come from here.
      RETURN_IF_ERROR(ExpectTheClient(tokens, /*from=*/true));
      copy.from_stdin = true;
      copy.query =
          StrCat("COPY ", table, columns ? StrCat(" (", *columns, ")") : "", " FROM STDIN");
    } else {
      copy.query = StrCat("SELECT ", columns.value_or("*"), " FROM ", table);
    }
  }
  if (!copy.from_stdin) {
    if (tokens.Accept("from")) {
      return Malformed("COPY (query) is TO STDOUT only; COPY FROM STDIN names a table");
    }
    if (!tokens.Accept("to")) return Malformed("TO STDOUT is missing");
    RETURN_IF_ERROR(ExpectTheClient(tokens, /*from=*/false));
  }
  tokens.Accept("with");
  Given given;
  if (tokens.Accept("(")) {
    do {
      std::optional<Token> name = tokens.Next();
      if (!name || name->kind != Token::kWord) return Malformed("an option's name is missing");
      RETURN_IF_ERROR(ApplyOption(name->text, tokens, &copy, &given));
    } while (tokens.Accept(","));
    if (!tokens.Accept(")")) return Malformed("the options' parenthesis is not closed");
    if (tokens.Peek()) return Malformed("text after the options");
  } else {
    for (std::optional<Token> name = tokens.Next(); name; name = tokens.Next()) {
      if (name->kind != Token::kWord) return Malformed(StrCat("unexpected '", name->text, "'"));
      RETURN_IF_ERROR(ApplyOption(name->text, tokens, &copy, &given));
    }
  }
  if (copy.csv) {
    if (!given.delimiter) copy.delimiter = ',';
    if (!given.null_text) copy.null_text = "";
    if (!given.escape) copy.escape = copy.quote;
  }
  return copy;
}

// A value in the text format: backslash, newline, carriage return, tab and the delimiter
// escaped with a backslash.
void AppendTextValue(std::string_view value, char delimiter, std::string* out) {
  for (char c : value) {
    switch (c) {
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\r':
        *out += "\\r";
        break;
      case '\t':
        *out += "\\t";
        break;
      default:
        if (c == delimiter) out->push_back('\\');
        out->push_back(c);
    }
  }
}

// A value in CSV: quoted when it holds the delimiter, the quote, a line break, or equals the
// NULL text (so an empty text is "" when NULL is empty), the quote escaped inside.
void AppendCsvValue(const CopyStatement& copy, std::string_view value, std::string* out) {
  const bool quoted = value == copy.null_text || value == "\\." ||
                      value.find_first_of(std::string{copy.delimiter, copy.quote, '\n', '\r'}) !=
                          std::string_view::npos;
  if (!quoted) {
    out->append(value);
    return;
  }
  out->push_back(copy.quote);
  for (char c : value) {
    if (c == copy.quote || c == copy.escape) out->push_back(copy.escape);
    out->push_back(c);
  }
  out->push_back(copy.quote);
}

void AppendValue(const CopyStatement& copy, std::string_view value, std::string* out) {
  if (copy.csv) {
    AppendCsvValue(copy, value, out);
  } else {
    AppendTextValue(value, copy.delimiter, out);
  }
}

// A hexadecimal digit's value (an octal one's too); -1 for another character.
int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

// The number of at most `most` digits of `base` at the start of `text`, and how many there are.
std::pair<int, size_t> LeadingNumber(std::string_view text, int base, size_t most) {
  int value = 0;
  size_t n = 0;
  for (; n < most && n < text.size(); ++n) {
    const int digit = DigitValue(text[n]);
    if (digit < 0 || digit >= base) break;
    value = value * base + digit;
  }
  return {value, n};
}

// A value of the text format with its backslash escapes read: \b \f \n \r \t \v, \ and up to
// three octal digits, \x and one or two hexadecimal ones, and any other character for itself.
std::string UnescapeText(std::string_view raw) {
  static constexpr std::string_view kLetters = "bfnrtv";
  static constexpr std::string_view kControls = "\b\f\n\r\t\v";
  std::string value;
  for (size_t k = 0; k < raw.size(); ++k) {
    if (raw[k] != '\\' || k + 1 == raw.size()) {
      value.push_back(raw[k]);
      continue;
    }
    const char c = raw[++k];
    if (const size_t letter = kLetters.find(c); letter != std::string_view::npos) {
      value.push_back(kControls[letter]);
    } else if (c == 'x') {
      const auto [v, n] = LeadingNumber(raw.substr(k + 1), 16, 2);
      value.push_back(n == 0 ? 'x' : static_cast<char>(v));  // \x alone is an x, as in PostgreSQL
      k += n;
    } else if (c >= '0' && c <= '7') {
      const auto [v, n] = LeadingNumber(raw.substr(k), 8, 3);
      value.push_back(static_cast<char>(v & 0xff));
      k += n - 1;
    } else {
      value.push_back(c);
    }
  }
  return value;
}

}  // namespace

std::optional<absl::StatusOr<CopyStatement>> ParseCopyStatement(std::string_view sql) {
  Tokens tokens(sql);
  std::optional<Token> first = tokens.Next();
  if (!first || first->kind != Token::kWord || first->text != "copy") return std::nullopt;
  return Parse(sql, tokens);
}

void AppendCopyHeader(const CopyStatement& copy, const std::vector<std::string>& names,
                      std::string* out) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out->push_back(copy.delimiter);
    AppendValue(copy, names[i], out);
  }
  out->push_back('\n');
}

void AppendCopyRow(const CopyStatement& copy, const std::vector<query::Datum>& row,
                   std::string* out, const absl::TimeZone* zone) {
  std::string text;
  for (size_t i = 0; i < row.size(); ++i) {
    if (i > 0) out->push_back(copy.delimiter);
    if (row[i].null) {
      out->append(copy.null_text);
      continue;
    }
    EncodeText(row[i], &text, zone);
    AppendValue(copy, text, out);
  }
  out->push_back('\n');
}

CopyInDecoder::CopyInDecoder(CopyStatement copy) : copy_(std::move(copy)), header_(copy_.header) {}

void CopyInDecoder::Feed(std::string_view data) {
  // What was read goes once it is most of what is held.
  if (pos_ > 0 && pos_ >= data_.size() / 2) {
    data_.erase(0, pos_);
    scanned_ -= pos_;
    pos_ = 0;
  }
  data_.append(data);
}

std::optional<size_t> CopyInDecoder::LineEnd() {
  size_t i = std::max(scanned_, pos_);
  for (; i < data_.size(); ++i) {
    const char c = data_[i];
    if (copy_.csv) {
      if (in_quotes_ && c == copy_.escape && copy_.escape != copy_.quote) {
        if (i + 1 == data_.size()) break;  // what it escapes is still to come
        ++i;
      } else if (c == copy_.quote) {
        in_quotes_ = !in_quotes_;  // a doubled quote leaves and enters again
      } else if (c == '\n' && !in_quotes_) {
        return i;
      }
    } else if (c == '\\') {
      if (i + 1 == data_.size()) break;
      ++i;  // an escaped character, a line break too, is the value's
    } else if (c == '\n') {
      return i;
    }
  }
  scanned_ = i;
  return std::nullopt;
}

absl::StatusOr<bool> CopyInDecoder::Next(query::CopyRow* row) {
  while (!ended_) {
    std::optional<size_t> end = LineEnd();
    if (!end) {
      if (data_.size() - pos_ > kMaxLineBytes) {
        return absl::InvalidArgumentError(
            StrCat("line ", line_, " of COPY's data is longer than ", kMaxLineBytes >> 20, " MiB"));
      }
      if (!finished_) return false;
      if (pos_ == data_.size()) break;
      if (copy_.csv && in_quotes_) {
        return absl::InvalidArgumentError(StrCat(
            "COPY's data ends inside the quoted CSV value that line ", line_, " opens; close it"));
      }
      end = data_.size();  // the last line, without its line break
    }
    std::string_view line(data_.data() + pos_, *end - pos_);
    const int64_t number = line_;
    line_ += 1 + std::count(line.begin(), line.end(), '\n');
    pos_ = std::min(*end + 1, data_.size());
    scanned_ = pos_;
    in_quotes_ = false;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line == "\\.") break;
    if (header_) {
      header_ = false;
      continue;
    }
    row->line = number;
    row->fields = copy_.csv ? CsvFields(line) : TextFields(line);
    return true;
  }
  ended_ = true;
  return false;
}

std::vector<std::optional<std::string>> CopyInDecoder::TextFields(std::string_view line) const {
  std::vector<std::optional<std::string>> fields;
  size_t start = 0;
  for (size_t i = 0;; ++i) {
    if (i < line.size() && line[i] == '\\') {
      ++i;  // an escaped delimiter is the value's
      continue;
    }
    if (i < line.size() && line[i] != copy_.delimiter) continue;
    const std::string_view raw = line.substr(start, std::min(i, line.size()) - start);
    if (raw == copy_.null_text) {
      fields.emplace_back(std::nullopt);
    } else {
      fields.emplace_back(UnescapeText(raw));
    }
    if (i >= line.size()) break;
    start = i + 1;
  }
  return fields;
}

std::vector<std::optional<std::string>> CopyInDecoder::CsvFields(std::string_view line) const {
  std::vector<std::optional<std::string>> fields;
  size_t i = 0;
  while (true) {
    std::string value;
    bool quoted = false;
    const size_t start = i;
    while (i < line.size() && line[i] != copy_.delimiter) {
      if (line[i] != copy_.quote) {
        value.push_back(line[i++]);
        continue;
      }
      quoted = true;
      for (++i; i < line.size(); ++i) {
        const char c = line[i];
        if (c == copy_.escape && i + 1 < line.size() &&
            (line[i + 1] == copy_.quote || line[i + 1] == copy_.escape)) {
          value.push_back(line[++i]);  // an escaped quote (a doubled one) or escape
        } else if (c == copy_.quote) {
          break;
        } else {
          value.push_back(c);
        }
      }
      ++i;  // past the closing quote
    }
    const bool null =
        !quoted && line.substr(start, std::min(i, line.size()) - start) == copy_.null_text;
    fields.emplace_back(null ? std::nullopt : std::optional<std::string>(std::move(value)));
    if (i >= line.size()) break;
    ++i;  // the delimiter
  }
  return fields;
}

}  // namespace strata::pg
