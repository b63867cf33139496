// `strata shell`: an interactive SQL session. Line editing and history come
// from libedit (its readline interface) when stdin is a terminal; a script
// piped in is read plainly, without prompts. Statements end with `;` and may
// span lines. Ctrl-C cancels the running query, or drops the statement being
// typed; it never ends the shell (Ctrl-D or \q does).
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <ctime>
#include <fstream>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <regex>
#include <sstream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "client/absl_compat.h"
#include "client/command.h"
#include "client/interrupt.h"
#include "client/query_runner.h"
#include "client/shell_completion.h"
#include "client/statement_splitter.h"

// libedit's readline header is C and not const-correct.
extern "C" {
#include <editline/readline.h>
}

namespace strata::cli {
namespace {

constexpr int kHistoryLines = 1000;

const char* kHelp = R"(Statements end with ; and may span lines.
  \l               list databases            (SHOW DATABASES)
  USE database;    tables named without a database are this one's (FROM cpu)
  \dt [database]   list tables               (SHOW TABLES [FROM database])
  \d db.table      describe a table          (DESCRIBE db.table, or DESCRIBE table after USE)
  \timing [on|off] show how long each statement takes
  \format NAME     table, csv, json, jsonl or expanded
  \x [on|off]      expanded rows: one "column | value" line per cell
  \o [FILE]        send results to FILE (\o alone: back to the terminal)
  \i FILE          run the statements in FILE
  \watch [SECONDS] run the last statement again every SECONDS (2) until Ctrl-C
  \pager [on|off]  page results taller than the screen ($STRATA_PAGER, $PAGER, else
                   less -FRX; on when STRATA_PAGER or PAGER is set)
  \?               this help
  \q               quit (or Ctrl-D)
Ctrl-C cancels a running query.
)";

std::string HistoryPath() {
  if (const char* path = std::getenv("STRATA_HISTORY")) return path;
  if (const char* home = std::getenv("HOME")) return std::string(home) + "/.strata_history";
  return "";
}

// The pager command: $STRATA_PAGER, else $PAGER, else "less -FRX"; "" or
// "off" in STRATA_PAGER: none.
std::string PagerCommand() {
  for (const char* name : {"STRATA_PAGER", "PAGER"}) {
    if (const char* value = std::getenv(name)) return std::string(value) == "off" ? "" : value;
  }
  return "less -FRX";
}

// An output that passes text straight through, unless the terminal has
// `rows` lines (above 0): then it holds the text until it is taller than
// the screen and from there on sends it through the pager, as psql does.
// Close() ends the pager (waiting for it) or prints what is held.
class PagedOutput : public std::streambuf {
 public:
  PagedOutput(std::ostream& direct, int rows) : direct_(direct), rows_(rows) {}
  ~PagedOutput() override { Close(); }

  void Close() {
    if (pipe_ != nullptr) {
      pclose(pipe_);
      pipe_ = nullptr;
    } else if (!held_.empty()) {
      direct_ << held_;
      held_.clear();
    }
    direct_.flush();
  }

 protected:
  int overflow(int c) override {
    if (c == EOF) return 0;
    const char ch = static_cast<char>(c);
    return xsputn(&ch, 1) == 1 ? c : EOF;
  }
  std::streamsize xsputn(const char* data, std::streamsize size) override {
    if (rows_ <= 0) {
      direct_.write(data, size);
      return size;
    }
    if (pipe_ != nullptr) return static_cast<std::streamsize>(std::fwrite(data, 1, size, pipe_));
    held_.append(data, static_cast<size_t>(size));
    lines_ += std::count(data, data + size, '\n');
    if (lines_ >= rows_ - 1) {
      pipe_ = popen(PagerCommand().c_str(), "w");
      if (pipe_ == nullptr) {
        rows_ = 0;  // no pager: print straight
        direct_ << held_;
      } else {
        std::fwrite(held_.data(), 1, held_.size(), pipe_);
      }
      held_.clear();
    }
    return size;
  }

 private:
  std::ostream& direct_;
  int rows_;
  std::string held_;
  int64_t lines_ = 0;
  FILE* pipe_ = nullptr;
};

// Keeps a result's cells as text (for completion's name lookups).
class CollectingWriter : public ResultWriter {
 public:
  void Begin(const v1::QueryMetadata& metadata) override {
    columns_.assign(metadata.columns().begin(), metadata.columns().end());
  }
  void Page(const v1::RowPage& page) override {
    for (const auto& row : page.rows()) {
      std::vector<std::string>& cells = rows_.emplace_back();
      for (int i = 0; i < row.data_size() && i < static_cast<int>(columns_.size()); ++i) {
        cells.push_back(DatumText(row.data(i), columns_[i].type()));
      }
    }
  }
  void Finish() override {}
  std::vector<std::vector<std::string>> rows_;

 private:
  std::vector<v1::ColumnInfo> columns_;
};

class Shell {
 public:
  Shell(Connection& connection, bool interactive, int page_size, std::string database)
      : connection_(connection),
        interactive_(interactive),
        page_size_(page_size),
        database_(std::move(database)),
        completion_([this](const std::string& sql) {
          CollectingWriter writer;
          QueryOutcome outcome = RunQuery(connection_, sql, writer, 0, 10);
          return outcome.status.ok() ? writer.rows_ : std::vector<std::vector<std::string>>();
        }) {
    completion_.Reset(database_);
  }

  int Run() {
    if (interactive_) {
      // A pager that quits before the whole result is written must not end the shell.
      std::signal(SIGPIPE, SIG_IGN);
      ShellCompletion::Install(&completion_);
      // We handle SIGINT ourselves (see ReadLine); libedit must not.
      rl_catch_signals = 0;
      stifle_history(kHistoryLines);
      history_path_ = HistoryPath();
      if (!history_path_.empty()) read_history(history_path_.c_str());
      std::cout << "strata shell, connected to " << connection_.target()
                << ". End statements with ; and type \\? for help.\n";
    }
    while (auto line = ReadLine()) {
      if (splitter_.empty() && IsMetaCommand(*line)) {
        Remember(*line);
        if (!RunMetaCommand(*line)) break;
        continue;
      }
      splitter_.AddLine(*line);
      for (const std::string& statement : splitter_.TakeStatements()) {
        Remember(statement + ";");
        Execute(statement);
      }
    }
    if (!splitter_.empty()) {
      std::cerr << "warning: the last statement has no closing ; and was not run\n";
    }
    if (interactive_ && !history_path_.empty()) write_history(history_path_.c_str());
    if (interactive_) ShellCompletion::Install(nullptr);
    if (interactive_) std::cout << "\n";
    return failures_ > 0 && !interactive_ ? ToInt(ExitCode::kRequestFailed) : 0;
  }

 private:
  // The next line, or nullopt at end of input. Ctrl-C while typing drops the
  // pending statement and asks again.
  std::optional<std::string> ReadLine() {
    if (!interactive_) {
      std::string line;
      if (!std::getline(std::cin, line)) return std::nullopt;
      return line;
    }
    while (true) {
      ClearInterrupted();
      char* raw = nullptr;
      {
        InputWait input_wait;
        const std::string prompt =
            splitter_.empty() ? (database_.empty() ? "strata> " : "strata:" + database_ + "> ")
                              : std::string(database_.empty() ? 0 : database_.size() + 1, ' ') +
                                    "     -> ";
        raw = readline(prompt.c_str());
      }
      if (raw != nullptr && !Interrupted()) {
        std::string line(raw);
        std::free(raw);
        return line;
      }
      std::free(raw);
      if (!Interrupted()) return std::nullopt;  // Ctrl-D
      splitter_.Clear();
      std::cout << "^C\n";
    }
  }

  void Remember(const std::string& entry) {
    if (interactive_) add_history(entry.c_str());
  }

  static bool IsMetaCommand(const std::string& line) {
    absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(line);
    return !trimmed.empty() && trimmed.front() == '\\';
  }

  // Returns false to quit.
  bool RunMetaCommand(const std::string& line) {
    std::vector<std::string> words = absl::StrSplit(
        ToAbsl(Trim(line)), absl::ByAnyChar(" \t"), absl::SkipEmpty());
    const std::string& command = words[0];
    std::string argument = words.size() > 1 ? words[1] : "";
    if (command == "\\q") return false;
    if (command == "\\?" || command == "\\h") {
      std::cout << kHelp;
    } else if (command == "\\l") {
      Execute("SHOW DATABASES");
    } else if (command == "\\dt") {
      if (argument.empty()) argument = database_;
      Execute(argument.empty() ? "SHOW TABLES" : absl::StrCat("SHOW TABLES FROM ", argument));
    } else if (command == "\\d") {
      Execute(argument.empty() ? "SHOW TABLES" : absl::StrCat("DESCRIBE ", argument));
    } else if (command == "\\timing") {
      timing_ = argument.empty() ? !timing_ : argument == "on";
      std::cout << "Timing is " << (timing_ ? "on" : "off") << ".\n";
    } else if (command == "\\x") {
      expanded_ = argument.empty() ? !expanded_ : argument == "on";
      std::cout << "Expanded display is " << (expanded_ ? "on" : "off") << ".\n";
    } else if (command == "\\o") {
      output_file_.reset();
      if (!argument.empty()) {
        auto file = std::make_unique<std::ofstream>(argument, std::ios::trunc);
        if (!*file) {
          std::cerr << "error: cannot write " << argument << ": " << std::strerror(errno) << "\n";
        } else {
          output_file_ = std::move(file);
        }
      }
    } else if (command == "\\i") {
      RunFile(argument);
    } else if (command == "\\watch") {
      Watch(argument.empty() ? 2.0 : std::atof(argument.c_str()));
    } else if (command == "\\pager") {
      pager_ = argument.empty() ? !pager_ : argument == "on";
      std::cout << "Pager is " << (pager_ ? "on" : "off") << ".\n";
    } else if (command == "\\format") {
      auto format = ParseOutputFormat(argument);
      if (format.ok()) {
        format_ = *format;
        std::cout << "Output format is " << argument << ".\n";
      } else {
        std::cerr << "error: " << format.status().message() << "\n";
      }
    } else {
      std::cerr << "error: unknown command " << command << "; \\? lists the commands\n";
    }
    return true;
  }

  // \i FILE: its statements, as if typed (meta-commands too).
  void RunFile(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
      std::cerr << "error: cannot read " << path << ": " << std::strerror(errno) << "\n";
      ++failures_;
      return;
    }
    StatementSplitter splitter;
    std::string line;
    while (std::getline(in, line)) {
      if (splitter.empty() && IsMetaCommand(line)) {
        if (!RunMetaCommand(line)) return;
        continue;
      }
      splitter.AddLine(line);
      for (const std::string& statement : splitter.TakeStatements()) Execute(statement);
    }
    if (!splitter.empty()) std::cerr << "warning: " << path << " ends without ; after a statement\n";
  }

  // \watch N: the last statement again every N seconds, until Ctrl-C.
  void Watch(double seconds) {
    if (last_statement_.empty()) {
      std::cerr << "error: \\watch repeats the last statement; there is none yet\n";
      return;
    }
    if (!(seconds > 0)) {
      std::cerr << "error: \\watch takes a number of seconds above 0\n";
      return;
    }
    ClearInterrupted();
    while (!Interrupted()) {
      std::time_t now = std::time(nullptr);
      char stamp[64];
      std::strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
      Output() << stamp << " (every " << seconds << " s)\n\n";
      Execute(last_statement_);
      const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
      while (!Interrupted() && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    }
    std::cout << "\n";
  }

  std::ostream& Output() { return output_file_ ? *output_file_ : std::cout; }

  // The terminal's height when results should go through the pager; 0 when not.
  int PagerRows() const {
    winsize size{};
    if (!pager_ || !interactive_ || output_file_ || !isatty(STDOUT_FILENO) ||
        PagerCommand().empty() || ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) != 0) {
      return 0;
    }
    return size.ws_row;
  }

  // `USE db`: checks that the database exists (and is visible to the token).
  bool Use(const std::string& sql) {
    static const std::regex kUse(R"re(\s*use\s+"?([^"\s;]+)"?\s*;?\s*)re", std::regex::icase);
    std::smatch match;
    if (!std::regex_match(sql, match, kUse)) return false;
    v1::DescribeDatabaseRequest request;
    request.set_database_name(match[1].str());
    v1::DescribeDatabaseResponse response;
    grpc::Status status =
        connection_.catalog().DescribeDatabase(connection_.UnaryContext().get(), request, &response);
    if (!status.ok()) {
      ++failures_;
      ReportRpcError(status, connection_);
      return true;
    }
    database_ = match[1].str();
    completion_.Reset(database_);
    std::cout << "using database " << database_ << "\n";
    return true;
  }

  void Execute(const std::string& sql) {
    if (Use(sql)) return;
    last_statement_ = sql;
    // Results stream out as they arrive; one taller than the screen goes through the pager.
    PagedOutput paged(Output(), PagerRows());
    std::ostream sink(&paged);
    auto writer = MakeResultWriter(expanded_ ? OutputFormat::kExpanded : format_, sink);
    auto start = std::chrono::steady_clock::now();
    ClearInterrupted();
    QueryOutcome outcome = RunQuery(connection_, sql, *writer, page_size_, 0, database_);
    sink.flush();
    paged.Close();
    double millis =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (outcome.interrupted) {
      std::cerr << "query cancelled\n";
    } else if (!outcome.status.ok()) {
      ++failures_;
      ReportRpcError(outcome.status, connection_);
    }
    if (timing_) std::cout << absl::StrFormat("Time: %.3f ms\n", millis);
    std::cout.flush();
  }

  Connection& connection_;
  bool interactive_;
  int page_size_;
  std::string database_;  // USE db / --database
  bool expanded_ = false;   // \x
  // \pager; on by default when the environment names a pager.
  bool pager_ = std::getenv("STRATA_PAGER") != nullptr || std::getenv("PAGER") != nullptr;
  std::unique_ptr<std::ofstream> output_file_;  // \o FILE
  std::string last_statement_;  // for \watch
  ShellCompletion completion_;
  InterruptScope interrupt_scope_;
  StatementSplitter splitter_;
  OutputFormat format_ = OutputFormat::kTable;
  bool timing_ = false;
  int failures_ = 0;
  std::string history_path_;
};

}  // namespace

void AddShellCommand(CLI::App& app, CommandContext& context) {
  CLI::App* command = app.add_subcommand(
      "shell", "Interactive SQL shell with history and line editing (reads a script from a pipe)");
  auto page_size = std::make_shared<int>(0);
  auto database = std::make_shared<std::string>();
  command->add_option("--page-size", *page_size, "Rows per streamed page (default 1000)");
  command->add_option("--database,-d", *database,
                      "Database of table names written without one (as USE db)")
      ->envname("STRATA_DATABASE");
  command->callback([&context, page_size, database] {
    Shell shell(context.connection(), isatty(STDIN_FILENO), *page_size, *database);
    int code = shell.Run();
    if (code != 0) context.set_exit_code(static_cast<ExitCode>(code));
  });
}

}  // namespace strata::cli
