// End-to-end tests of the `strata` CLI: the real binary against the real
// stratad on loopback. Output formats are compared with golden files in
// cli_golden/ (STRATA_UPDATE_GOLDEN=1 rewrites them); the shell is driven
// through a pseudo-terminal.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/stratad_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/temp_dir.h"

namespace strata {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::ProcessResult;
using testing::PtyProcess;
using testing::RunProcess;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream(path) << content;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class CliE2ETest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.Start()) << server_.error(); }

  std::vector<std::string> Argv(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = {STRATA_CLI_PATH, "--port", std::to_string(server_.port())};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  ProcessResult Cli(const std::vector<std::string>& args, const std::string& input = "") {
    return RunProcess(Argv(args), input, {"HOME=" + dir_.path().string()});
  }

  // Runs a command that must succeed and returns its stdout.
  std::string Ok(const std::vector<std::string>& args, const std::string& input = "") {
    ProcessResult r = Cli(args, input);
    EXPECT_EQ(r.exit_code, 0) << "strata " << ::testing::PrintToString(args) << "\n" << r.err;
    return r.out;
  }

  std::string Count(const std::string& table, const std::string& where = "") {
    std::string out = Ok({"query", "SELECT count(*) FROM " + table + where, "-f", "csv"});
    return out.substr(out.find('\n') + 1, out.size() - out.find('\n') - 2);
  }

  void CreateTable(const std::string& table, std::vector<std::string> extra = {}) {
    Cli({"db", "create", "mydb"});
    std::vector<std::string> args = {"table", "create", "mydb", table};
    args.insert(args.end(), extra.begin(), extra.end());
    Ok(args);
  }

  std::string Path(const std::string& name) const { return dir_.path().string() + "/" + name; }

  testing::StratadProcess server_;
  testing::TempDir dir_;
};

TEST_F(CliE2ETest, HealthReportsServingAndUnreachable) {
  ProcessResult ok = Cli({"health"});
  EXPECT_EQ(ok.exit_code, 0);
  EXPECT_EQ(ok.out, "SERVING\n");
  EXPECT_EQ(Cli({"health", "--service", "strata.v1.QueryService"}).exit_code, 0);

  // A port nobody listens on: exit 3 and a hint.
  server_.Stop();
  ProcessResult down = Cli({"health"});
  EXPECT_EQ(down.exit_code, 3);
  EXPECT_THAT(down.err, HasSubstr("cannot reach stratad"));
  EXPECT_THAT(down.err, HasSubstr("--host/--port"));
}

TEST_F(CliE2ETest, UsageErrorsExitTwoWithoutSendingAnything) {
  EXPECT_EQ(Cli({}).exit_code, 2);
  EXPECT_EQ(Cli({"db"}).exit_code, 2);
  EXPECT_EQ(Cli({"db", "frobnicate"}).exit_code, 2);
  EXPECT_EQ(Cli({"--port", "70000", "health"}).exit_code, 2);
  ProcessResult help = Cli({"table", "create", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_THAT(help.out, HasSubstr("--memory"));
  ProcessResult bad_duration = Cli({"table", "create", "mydb", "tbl", "--memory", "12x"});
  EXPECT_EQ(bad_duration.exit_code, 2);
  EXPECT_THAT(bad_duration.err, HasSubstr("invalid duration \"12x\""));
  ProcessResult days = Cli({"table", "create", "mydb", "tbl", "--magnetic", "36h"});
  EXPECT_EQ(days.exit_code, 2);
  EXPECT_THAT(days.err, HasSubstr("not a whole number of days"));
  // A cluster's read choice: checked before anything is sent.
  ProcessResult read = Cli({"query", "--read", "eventual", "SELECT 1"});
  EXPECT_EQ(read.exit_code, 2);
  EXPECT_THAT(read.err, HasSubstr("eventual"));
  EXPECT_EQ(Cli({"query", "--max-fragments", "65", "SELECT 1"}).exit_code, 2);
  EXPECT_EQ(Cli({"query", "--max-staleness-ms", "0", "SELECT 1"}).exit_code, 2);
  // A single node checks the choice and reads its own data.
  EXPECT_EQ(Ok({"query", "-f", "csv", "--read", "follower", "--max-staleness-ms", "50",
                "--max-fragments", "2", "SELECT 41 + 1"}),
            "_col0\n42\n");
  // A cluster's node list: an id is required; a single server has no nodes to change.
  EXPECT_EQ(Cli({"cluster", "add-node"}).exit_code, 2);
  EXPECT_EQ(Cli({"cluster", "remove-node"}).exit_code, 2);
  ProcessResult single = Cli({"cluster", "add-node", "n3"});
  EXPECT_NE(single.exit_code, 0);
  EXPECT_THAT(single.err, HasSubstr("not a cluster node"));
  EXPECT_THAT(Cli({"cluster", "rebalance"}).err, HasSubstr("not a cluster node"));
  // A cluster's backup needs its directory; a single server points to its own backups.
  EXPECT_EQ(Cli({"cluster", "backup"}).exit_code, 2);
  EXPECT_EQ(Cli({"cluster", "restore"}).exit_code, 2);
  EXPECT_THAT(Cli({"cluster", "backup", "--to", "/tmp/x"}).err, HasSubstr("strata backup create"));
  EXPECT_THAT(Cli({"cluster", "restore", "--from", "/tmp/x"}).err,
              HasSubstr("stratad --restore-from"));
  // Nothing reached the server.
  EXPECT_EQ(Ok({"db", "list", "-f", "csv"}), "database,tables,description,created,updated\n");
}

TEST_F(CliE2ETest, ScheduledQueryCommands) {
  CreateTable("cpu");
  Ok({"table", "create", "mydb", "cpu_1m"});
  const int64_t now_ms = NowMillis();
  const int64_t minute = now_ms / 60'000 * 60'000;
  Ok({"write", "mydb", "cpu", "-D", "host=h1", "-m", "usage=10", "--time",
      std::to_string(minute - 50'000)});
  Ok({"write", "mydb", "cpu", "-D", "host=h1", "-m", "usage=20", "--time",
      std::to_string(minute - 40'000)});
  const std::vector<std::string> create = {
      "scheduled-query", "create", "cpu_rollup", "--query",
      "SELECT host, bin(time, 1m) AS minute, avg(measure_value::double) AS avg_usage, count(*) "
      "AS n FROM mydb.cpu WHERE time >= @scheduled_runtime - 1m AND time < @scheduled_runtime "
      "GROUP BY host, bin(time, 1m)",
      "--schedule", "rate(1 day)", "--database", "mydb", "--table", "cpu_1m", "--time-column",
      "minute", "--dimension", "host", "--measure-name", "usage_1m", "--measure",
      "avg_usage:double", "--measure", "n:bigint:samples"};
  EXPECT_THAT(Ok(create), HasSubstr("created scheduled query cpu_rollup; next run at "));
  ProcessResult again = Cli(create);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("already exists"));
  EXPECT_THAT(Ok({"scheduled-query", "list", "-f", "csv"}),
              HasSubstr("cpu_rollup,ENABLED,rate(1 day),mydb.cpu_1m,"));
  EXPECT_THAT(Ok({"scheduled-query", "execute", "cpu_rollup", "--at", std::to_string(minute)}),
              HasSubstr("MANUAL_TRIGGER_SUCCESS"));
  EXPECT_THAT(Ok({"query", "SELECT host, avg_usage, samples FROM mydb.cpu_1m", "-f", "csv"}),
              HasSubstr("h1,15,2\n"));
  // Text to read; --json the message (what create --from-json takes).
  const std::string described = Ok({"scheduled-query", "describe", "cpu_rollup"});
  EXPECT_THAT(described, HasSubstr("name:             cpu_rollup\n"
                                   "state:            ENABLED\n"
                                   "schedule:         rate(1 day) (UTC)\n"));
  EXPECT_THAT(described, HasSubstr(" (authentication off: no token)\n"));
  EXPECT_THAT(described, HasSubstr("target:           mydb.cpu_1m, time from minute\n"
                                   "  dimension       host\n"
                                   "  MULTI measure   usage_1m\n"
                                   "    avg_usage -> avg_usage (double)\n"
                                   "    n -> samples (bigint)\n"));
  EXPECT_THAT(described, HasSubstr("last run:         MANUAL_TRIGGER_SUCCESS for "));
  EXPECT_THAT(described, Not(HasSubstr("{")));
  EXPECT_THAT(Ok({"scheduled-query", "describe", "cpu_rollup", "--json"}),
              HasSubstr("\"runStatus\": \"MANUAL_TRIGGER_SUCCESS\""));
  Ok({"scheduled-query", "disable", "cpu_rollup"});
  EXPECT_THAT(Ok({"scheduled-query", "list", "-f", "csv"}), HasSubstr("cpu_rollup,DISABLED,"));
  ProcessResult bad = Cli({"scheduled-query", "create", "x", "--query", "SELECT 1", "--schedule",
                           "rate(1 minute)", "--database", "mydb", "--table", "cpu_1m",
                           "--time-column", "t", "--measure", "a"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("COLUMN:TYPE"));
  Ok({"scheduled-query", "delete", "cpu_rollup"});
  Ok({"scheduled-query", "delete", "cpu_rollup", "--if-exists"});
  EXPECT_EQ(Cli({"scheduled-query", "delete", "cpu_rollup"}).exit_code, 1);
  EXPECT_THAT(Ok({"scheduled-query", "create", "--help"}), HasSubstr("@scheduled_runtime"));
}

TEST_F(CliE2ETest, DatabaseCommands) {
  EXPECT_THAT(Ok({"db", "create", "metrics", "--description", "app metrics"}),
              HasSubstr("created database metrics"));
  ProcessResult again = Cli({"db", "create", "metrics"});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_THAT(again.err, HasSubstr("already exists"));
  EXPECT_THAT(Ok({"db", "list", "-f", "csv"}), HasSubstr("metrics,0,app metrics,"));
  Ok({"db", "update", "metrics", "--description", "renamed"});
  EXPECT_THAT(Ok({"db", "describe", "metrics", "-f", "jsonl"}),
              HasSubstr("\"database\":\"metrics\",\"tables\":0,\"description\":\"renamed\""));
  ProcessResult missing = Cli({"db", "describe", "metricz"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, HasSubstr("did you mean \"metrics\""));
  Ok({"db", "delete", "metrics"});
  EXPECT_EQ(Ok({"db", "list", "-f", "csv"}), "database,tables,description,created,updated\n");
}

TEST_F(CliE2ETest, TableCommands) {
  Ok({"db", "create", "mydb"});
  EXPECT_THAT(Ok({"table", "create", "mydb", "cpu", "--memory", "12h", "--magnetic", "1y"}),
              HasSubstr("created table mydb.cpu (memory 12h, magnetic 365d)"));
  Ok({"table", "create", "mydb", "events", "--magnetic-writes", "true", "--partition-key",
      "dimension:host", "--partition-key-enforcement", "required"});
  Ok({"table", "create", "mydb", "memory_only", "--memory", "24h"});
  Ok({"table", "create", "mydb", "magnetic_only", "--magnetic", "30d"});
  std::string list = Ok({"table", "list", "mydb", "-f", "csv"});
  EXPECT_THAT(list, HasSubstr("mydb,memory_only,24,73000,"));
  EXPECT_THAT(list, HasSubstr("mydb,magnetic_only,6,30,"));
  EXPECT_THAT(list, HasSubstr("mydb,cpu,12,365,false,measure_name,"));
  EXPECT_THAT(list, HasSubstr("mydb,events,6,73000,true,dimension host (required),"));

  Ok({"table", "update", "mydb", "cpu", "--memory", "2d", "--magnetic-writes", "true"});
  EXPECT_THAT(Ok({"table", "describe", "mydb", "cpu", "-f", "csv"}),
              HasSubstr("mydb,cpu,48,365,true,measure_name,"));
  // Only the enforcement changes; the key stays the one of creation.
  Ok({"table", "update", "mydb", "events", "--partition-key-enforcement", "optional"});
  EXPECT_THAT(Ok({"table", "describe", "mydb", "events", "-f", "csv"}),
              HasSubstr("dimension host (optional)"));

  ProcessResult nothing = Cli({"table", "update", "mydb", "cpu"});
  EXPECT_EQ(nothing.exit_code, 2);
  EXPECT_THAT(nothing.err, HasSubstr("nothing to update"));
  ProcessResult bad_flag = Cli({"table", "update", "mydb", "cpu", "--magnetic-writes", "maybe"});
  EXPECT_EQ(bad_flag.exit_code, 2);
  EXPECT_THAT(bad_flag.err, HasSubstr("true or false"));

  Ok({"table", "delete", "mydb", "cpu"});
  ProcessResult gone = Cli({"table", "describe", "mydb", "cpu"});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_THAT(gone.err, HasSubstr("cpu"));
}

TEST_F(CliE2ETest, WriteFromFlagsAndLineProtocol) {
  CreateTable("cpu");
  EXPECT_THAT(Ok({"write", "mydb", "cpu", "-D", "host=a", "-m", "usage:double=0.5"}),
              HasSubstr("wrote 1 of 1 record (memory store 1"));
  Ok({"write", "mydb", "cpu", "-D", "host=b", "-m", "usage=1.5", "-m", "procs=7", "--measure-name",
      "stats", "--time", std::to_string(NowMillis())});
  int64_t now_ns = NowMillis() * 1'000'000;
  Ok({"write", "mydb", "cpu", "cpu,host=c usage=2.5,up=t " + std::to_string(now_ns),
      "cpu,host=d usage=3.5,note=\"x y\" " + std::to_string(now_ns)});
  EXPECT_EQ(Count("mydb.cpu"), "4");
  EXPECT_THAT(Ok({"query", "SELECT procs FROM mydb.cpu WHERE host = 'b'", "-f", "csv"}),
              HasSubstr("procs\n7\n"));

  // A lower version of a changed record is rejected: exit 4, reason shown.
  std::string time = std::to_string(NowMillis());
  Ok({"write", "mydb", "cpu", "-D", "host=v", "-m", "usage=1.0", "--time", time, "--version", "5"});
  ProcessResult stale = Cli({"write", "mydb", "cpu", "-D", "host=v", "-m", "usage=2.0", "--time", time,
                             "--version", "4"});
  EXPECT_EQ(stale.exit_code, 4);
  EXPECT_THAT(stale.err, HasSubstr("rejected record 1"));

  ProcessResult several = Cli({"write", "mydb", "cpu", "-m", "a=1", "-m", "b=2"});
  EXPECT_EQ(several.exit_code, 2);
  EXPECT_THAT(several.err, HasSubstr("--measure-name"));
  EXPECT_EQ(Cli({"write", "mydb", "cpu", "-m", "a:int=1"}).exit_code, 2);
  EXPECT_EQ(Cli({"write", "mydb", "cpu", "cpu usage=oops"}).exit_code, 2);
  ProcessResult unknown = Cli({"write", "mydb", "nope", "-m", "a=1"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("nope"));
}

TEST_F(CliE2ETest, ImportCsvIngestsGoodRowsAndNamesEachBadLine) {
  CreateTable("cpu");
  int64_t now = NowMillis();
  auto t = [&](int i) { return std::to_string(now - 1000 * i); };
  WriteFile(Path("data.csv"),
            "time,host,region,cpu,mem:bigint,note:varchar\n" +
                t(1) + ",a,eu,0.5,100,\"hello, world\"\n" +    // line 2
                t(2) + ",b,eu,bad,200,x\n" +                   // line 3: bad double
                t(3) + ",c,\"us\neast\",1.5,300,y\n" +         // lines 4-5: quoted line break
                t(4) + ",d,eu,2.5,4.5,z\n" +                   // line 6: bad bigint
                t(5) + ",e,eu,3.5,500\n" +                     // line 7: a field short
                t(6) + ",f,eu,4.5,600,w\n" +                   // line 8
                "2099-01-01T00:00:00Z,g,eu,1,1,future\n");     // line 9: server rejects
  ProcessResult r = Cli({"import", "mydb", "cpu", Path("data.csv")});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_THAT(r.out, HasSubstr("imported 3 records from " + Path("data.csv")));
  EXPECT_THAT(r.out, HasSubstr("; 4 rejected"));
  EXPECT_THAT(r.out, HasSubstr("line 3: measure \"cpu\": \"bad\" is not a valid finite double"));
  EXPECT_THAT(r.out, HasSubstr("line 6: measure \"mem\": \"4.5\" is not a valid bigint"));
  EXPECT_THAT(r.out, HasSubstr("line 7: expected 6 fields as in the header, found 5"));
  EXPECT_THAT(r.out, HasSubstr("line 9: "));
  EXPECT_EQ(Count("mydb.cpu"), "3");
  EXPECT_THAT(Ok({"query", "SELECT region, mem, note FROM mydb.cpu WHERE host = 'c'", "-f", "csv"}),
              HasSubstr("\"us\neast\",300,y"));
  EXPECT_THAT(Ok({"query", "SELECT note FROM mydb.cpu WHERE host = 'a'", "-f", "csv"}),
              HasSubstr("\"hello, world\""));
}

TEST_F(CliE2ETest, ImportJsonLinesWithRejectLog) {
  CreateTable("events");
  int64_t now = NowMillis();
  WriteFile(Path("events.jsonl"),
            "{\"time\": " + std::to_string(now) + ", \"host\": \"a\", \"cpu\": 1.25, \"ok\": true}\n"
            "{\"time\": " + std::to_string(now) + ", \"host\": \"b\", \"cpu\": \"x\"}\n"
            "not json\n"
            "\n"
            "{\"time\": \"" + std::string("2020-01-01T00:00:00Z") + "\", \"host\": \"c\", \"cpu\": 2}\n"
            "{\"host\": \"d\", \"cpu\": 2}\n"
            "{\"time\": " + std::to_string(now) + ", \"host\": \"e\", \"cpu\": 3, \"procs\": 4}\n");
  ProcessResult r = Cli({"import", "mydb", "events", Path("events.jsonl"), "--measures",
                         "procs:bigint", "--reject-log", Path("rejects.tsv")});
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_THAT(r.out, HasSubstr("imported 2 records"));
  EXPECT_THAT(r.out, HasSubstr("4 rejected"));
  std::string log = ReadFile(Path("rejects.tsv"));
  EXPECT_THAT(log, HasSubstr("2\tmeasure \"cpu\": \"x\" is not a valid finite double\t{"));
  EXPECT_THAT(log, HasSubstr("3\tnot a JSON object"));
  EXPECT_THAT(log, HasSubstr("\tnot json\n"));
  EXPECT_THAT(log, HasSubstr("5\t"));  // older than the memory retention
  EXPECT_THAT(log, HasSubstr("6\tno time"));
  EXPECT_EQ(Count("mydb.events"), "2");
  EXPECT_THAT(Ok({"query", "SELECT procs, ok FROM mydb.events ORDER BY host", "-f", "csv"}),
              HasSubstr("procs,ok\n,true\n4,\n"));
}

TEST_F(CliE2ETest, UnknownCommandsSuggestAndBareStrataPrintsTheHelp) {
  ProcessResult typo = Cli({"querry", "SELECT 1"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_EQ(typo.err, "strata: unknown command \"querry\"; did you mean query? "
                      "(strata --help lists the commands)\n");
  ProcessResult far = Cli({"frobnicate"});
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_THAT(far.err, HasSubstr("unknown command \"frobnicate\" (strata --help"));
  // Nested commands and misspelt options say which, at their level.
  ProcessResult nested = Cli({"db", "craete", "x"});
  EXPECT_EQ(nested.exit_code, 2);
  EXPECT_EQ(nested.err, "strata db: unknown command \"craete\"; did you mean create? "
                        "(strata db --help lists the commands)\n");
  ProcessResult flag = RunProcess({STRATA_CLI_PATH, "--prot", "27878", "health"});
  EXPECT_EQ(flag.exit_code, 2);
  EXPECT_EQ(flag.err, "strata: unknown option --prot; did you mean --port? "
                      "(strata --help lists the options)\n");
  ProcessResult sub_flag = Cli({"query", "--fromat", "csv", "SELECT 1"});
  EXPECT_THAT(sub_flag.err, HasSubstr("strata query: unknown option --fromat; did you mean "
                                      "--format?"));
  for (const std::string bad : {"0", "1ms", "-3"}) {
    ProcessResult timeout = Cli({"query", "--timeout", bad, "SELECT 1"});
    EXPECT_EQ(timeout.exit_code, 2);
    EXPECT_THAT(timeout.err, HasSubstr("--timeout: takes a number of seconds above 0, such as 30 "
                                       "or 0.5 (not \"" + bad + "\")"));
  }
  // A query that fails before any row prints its error alone, no header.
  ProcessResult failed = Cli({"query", "-f", "csv", "SELECT 1 / 0"});
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(failed.out, "");
  EXPECT_THAT(failed.err, HasSubstr("Division by zero"));
  EXPECT_EQ(Cli({"query", "-f", "csv", "SELECT 1 AS x WHERE false"}).out, "x\n");
  ProcessResult bare = RunProcess({STRATA_CLI_PATH});
  EXPECT_EQ(bare.exit_code, 0);
  EXPECT_THAT(bare.out, HasSubstr("Usage: strata [OPTIONS] SUBCOMMAND"));
  EXPECT_THAT(bare.out, HasSubstr("query"));
}

// A bash function that completes its argument as bash would (COMP_WORDS,
// COMP_CWORD, then _strata) and prints "line-> candidates".
constexpr const char* kCompleteLine =
    "complete_line() { read -ra COMP_WORDS <<< \"$1\"; [[ $1 == *' ' ]] && COMP_WORDS+=('');"
    " COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _strata; echo \"$1-> ${COMPREPLY[*]}\"; }\n";

// The completion script, loaded into a real bash and asked as bash would.
TEST(CliCompletionTest, BashCompletesCommandsAndFlags) {
  const std::string script =
      std::string("source <(\"") + STRATA_CLI_PATH + "\" completion bash)\n"
      + std::string(kCompleteLine) +
      "complete_line 'strata que'\n"
      "complete_line 'strata db cr'\n"
      "complete_line 'strata --port 7878 table '\n"
      "complete_line 'strata table create db t --if'\n"
      "complete -p strata\n";
  ProcessResult r = RunProcess({"/bin/bash", "-c", script});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "strata que-> query\n"
            "strata db cr-> create\n"
            "strata --port 7878 table -> create list describe update delete --help\n"
            "strata table create db t --if-> --if-not-exists\n"
            "complete -o default -F _strata strata\n");
  ProcessResult zsh = RunProcess({STRATA_CLI_PATH, "completion", "zsh"});
  EXPECT_THAT(zsh.out, ::testing::StartsWith("autoload -U +X bashcompinit && bashcompinit\n"));
  ProcessResult fish = RunProcess({STRATA_CLI_PATH, "completion", "fish"});
  EXPECT_EQ(fish.exit_code, 2);
  EXPECT_THAT(fish.err, HasSubstr("use bash or zsh"));
}

// Option values from their fixed lists; database and table arguments from
// the server the line names (its --port), through `strata` on PATH.
TEST_F(CliE2ETest, BashCompletesOptionValuesDatabasesAndTables) {
  CreateTable("cpu");
  CreateTable("cpu_1m");
  const std::string port = std::to_string(server_.port());
  const std::string cli_dir = std::filesystem::path(STRATA_CLI_PATH).parent_path().string();
  const std::string script =
      "export PATH=\"" + cli_dir + ":$PATH\"\n"
      "source <(strata completion bash)\n"
      + std::string(kCompleteLine) +
      "complete_line 'strata query -f '\n"
      "complete_line 'strata import db t f --on-reject s'\n"
      "complete_line 'strata --port " + port + " table describe my'\n"
      "complete_line 'strata --port " + port + " table describe mydb cpu'\n"
      "complete_line 'strata table describe --port " + port + " mydb cpu_'\n"
      "complete_line 'strata --port 1 db describe '\n";
  ProcessResult r = RunProcess({"/bin/bash", "-c", script});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "strata query -f -> table csv json jsonl expanded\n"
            "strata import db t f --on-reject s-> skip\n"
            "strata --port " + port + " table describe my-> mydb\n"
            "strata --port " + port + " table describe mydb cpu-> cpu cpu_1m\n"
            "strata table describe --port " + port + " mydb cpu_-> cpu_1m\n"
            // No server there: nothing to offer, and no error on the terminal.
            "strata --port 1 db describe -> \n");
}

TEST_F(CliE2ETest, IfNotExistsAndIfExists) {
  EXPECT_EQ(Ok({"db", "create", "dbx", "--if-not-exists"}), "created database dbx\n");
  EXPECT_EQ(Ok({"db", "create", "dbx", "--if-not-exists"}), "database dbx exists already\n");
  EXPECT_EQ(Cli({"db", "create", "dbx"}).exit_code, 1);  // without the flag it is an error
  EXPECT_THAT(Ok({"table", "create", "dbx", "tbl", "--if-not-exists"}), HasSubstr("created table dbx.tbl"));
  EXPECT_EQ(Ok({"table", "create", "dbx", "tbl", "--if-not-exists"}), "table dbx.tbl exists already\n");
  EXPECT_EQ(Ok({"table", "delete", "dbx", "tbl", "--if-exists"}), "deleted table dbx.tbl\n");
  EXPECT_EQ(Ok({"table", "delete", "dbx", "tbl", "--if-exists"}), "table dbx.tbl does not exist\n");
  EXPECT_EQ(Ok({"db", "delete", "dbx", "--if-exists"}), "deleted database dbx\n");
  EXPECT_EQ(Ok({"db", "delete", "dbx", "--if-exists"}), "database dbx does not exist\n");
  EXPECT_NE(Cli({"db", "delete", "dbx"}).exit_code, 0);
}

TEST_F(CliE2ETest, RejectionHintsNameTheCliFlag) {
  CreateTable("old");
  ProcessResult r = Cli({"write", "mydb", "old", "-D", "host=a", "-m", "v=1", "--time",
                         std::to_string(NowMillis() - 48 * 3600 * 1000)});
  EXPECT_THAT(r.err, HasSubstr("strata table update mydb old --magnetic-writes true"));
  EXPECT_THAT(r.err, Not(HasSubstr("enable_magnetic_store_writes")));
}

// Queries that take long (the server waits --testing-query-delay-ms before each).
TEST(CliSlowQueryE2ETest, TimeoutAndCtrlCBeforeAnyRow) {
  testing::StratadProcess server;
  ASSERT_TRUE(server.Start({"--testing-query-delay-ms", "30000"})) << server.error();
  const std::string port = std::to_string(server.port());
  ProcessResult timed_out = RunProcess({STRATA_CLI_PATH, "--port", port, "query", "SELECT 1",
                                        "--timeout", "0.3"});
  EXPECT_EQ(timed_out.exit_code, 1);
  EXPECT_THAT(timed_out.err, HasSubstr("the query ran past its timeout of 300 ms"));

  // Ctrl-C before the first row: "query cancelled", and no empty table above it.
  PtyProcess query({STRATA_CLI_PATH, "--port", port, "query", "SELECT 1"});
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  query.Type("\x03");
  EXPECT_EQ(query.Wait(std::chrono::seconds(20)), 130) << query.output();
  EXPECT_THAT(query.output(), HasSubstr("query cancelled"));
  EXPECT_THAT(query.output(), Not(HasSubstr("(0 rows)")));
}

TEST_F(CliE2ETest, ImportLineProtocolFromStdinStopsAtFirstRejectionWithFail) {
  CreateTable("cpu");
  int64_t now_ns = NowMillis() * 1'000'000;
  std::string input = "# a comment\n"
                      "cpu,host=a usage=1.5,procs=3i " + std::to_string(now_ns) + "\n"
                      "cpu,host=b usage=abc\n"
                      "cpu,host=c usage=2.5 " + std::to_string(now_ns) + "\n";
  ProcessResult fail = Cli({"import", "mydb", "cpu", "-", "--format", "lp", "--on-reject", "fail"},
                           input);
  EXPECT_EQ(fail.exit_code, 4);
  EXPECT_THAT(fail.out, HasSubstr("imported 1 record from stdin"));
  // The column is where the bad value starts.
  EXPECT_THAT(fail.out, HasSubstr("line 3: field \"usage\": \"abc\" is not a number, integer (1i), "
                                  "boolean (t/f) or quoted string (column 18)"));
  EXPECT_THAT(fail.out, HasSubstr("stopped at the first rejection"));
  EXPECT_EQ(Count("mydb.cpu"), "1");

  ProcessResult skip = Cli({"import", "mydb", "cpu", "-", "--format", "lp"}, input);
  EXPECT_EQ(skip.exit_code, 4);
  EXPECT_EQ(Count("mydb.cpu"), "2");
  ProcessResult no_format = Cli({"import", "mydb", "cpu", "-"}, input);
  EXPECT_EQ(no_format.exit_code, 2);
  EXPECT_THAT(no_format.err, HasSubstr("--format"));
  ProcessResult no_table = Cli({"import", "mydb", "nope", "-", "--format", "lp"}, input);
  EXPECT_EQ(no_table.exit_code, 1);
  EXPECT_THAT(no_table.err, HasSubstr("nope"));
  EXPECT_THAT(no_table.out, HasSubstr("nothing was stored: the first request failed, and no "
                                      "other was sent"));
  EXPECT_THAT(no_table.out, HasSubstr("`strata table create mydb nope`, or import with --create"));
}

// An import into a missing table sends one request (the first goes alone),
// so the server logs one failed call per import, not one per request in
// flight; --create makes the table and imports.
TEST_F(CliE2ETest, ImportIntoAMissingTableFailsOnceOrCreatesIt) {
  Ok({"db", "create", "mydb"});
  const int64_t now = NowMillis();
  std::string csv = "time,host,cpu\n";
  for (int i = 0; i < 3000; ++i) {
    csv += std::to_string(now - i) + ",h" + std::to_string(i % 7) + "," + std::to_string(i) + "\n";
  }
  WriteFile(Path("many.csv"), csv);
  auto failed_writes = [&] {
    const std::string log = server_.log();
    int n = 0;
    for (size_t at = log.find("WriteRecords code=NOT_FOUND"); at != std::string::npos;
         at = log.find("WriteRecords code=NOT_FOUND", at + 1)) {
      ++n;
    }
    return n;
  };
  for (int i = 0; i < 2; ++i) {
    ProcessResult r = Cli({"import", "mydb", "later", Path("many.csv"), "--dimensions", "host",
                           "--parallel", "16", "--progress", "none"});
    EXPECT_EQ(r.exit_code, 1);
  }
  EXPECT_EQ(failed_writes(), 2);
  ProcessResult created = Cli({"import", "mydb", "later", Path("many.csv"), "--dimensions", "host",
                               "--progress", "none", "--create"});
  EXPECT_EQ(created.exit_code, 0) << created.err;
  EXPECT_THAT(created.out, HasSubstr("created table mydb.later"));
  EXPECT_THAT(created.out, HasSubstr("imported 3000 records"));
  EXPECT_EQ(Count("mydb.later"), "3000");
  // Again: the table exists, and the same records are accepted once.
  ProcessResult again = Cli({"import", "mydb", "later", Path("many.csv"), "--dimensions", "host",
                             "--progress", "none", "--create"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, Not(HasSubstr("created table")));
  EXPECT_EQ(Count("mydb.later"), "3000");
}

TEST_F(CliE2ETest, ImportsManyBatchesInParallel) {
  CreateTable("big");
  int64_t now = NowMillis();
  std::string csv = "time,host,cpu\n";
  constexpr int kRows = 5000;
  for (int i = 0; i < kRows; ++i) {
    csv += std::to_string(now - i) + ",h" + std::to_string(i % 50) + "," + std::to_string(i) + "\n";
  }
  WriteFile(Path("big.csv"), csv);
  ProcessResult r =
      Cli({"import", "mydb", "big", Path("big.csv"), "--parallel", "8", "--batch-size", "100"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("imported 5000 records"));
  EXPECT_THAT(r.out, HasSubstr("0 rejected"));
  EXPECT_EQ(Count("mydb.big"), "5000");
  EXPECT_EQ(Ok({"query", "SELECT sum(cpu) FROM mydb.big", "-f", "csv"}), "_col0\n12497500\n");
}

// A server whose write queue is full refuses a request at once
// (RESOURCE_EXHAUSTED, nothing of it written): the import sends it again
// after a jittered backoff instead of ending. Here the queue holds one
// request and eight senders compete for it; a bad --batch-size is refused.
TEST_F(CliE2ETest, ImportWaitsOutAFullWriteQueue) {
  ASSERT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Start({"--write-queue", "1"})) << server_.error();
  CreateTable("queued");
  int64_t now = NowMillis();
  std::string csv = "time,host,cpu\n";
  constexpr int kRows = 20'000;
  for (int i = 0; i < kRows; ++i) {
    csv += std::to_string(now - i) + ",h" + std::to_string(i % 50) + "," + std::to_string(i) + "\n";
  }
  WriteFile(Path("queued.csv"), csv);
  ProcessResult r = Cli({"import", "mydb", "queued", Path("queued.csv"), "--parallel", "8",
                         "--batch-size", "500", "--progress", "none"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("imported 20000 records"));
  EXPECT_EQ(Count("mydb.queued"), "20000");

  for (const char* size : {"0", "10001"}) {
    ProcessResult bad = Cli({"import", "mydb", "queued", Path("queued.csv"), "--batch-size", size});
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_THAT(bad.err, HasSubstr("--batch-size must be 1..10000"));
  }
}

// A request over the server's --max-message-bytes is gRPC's RESOURCE_EXHAUSTED too, but
// the same request would be refused again: the import ends at once, saying what to change.
TEST_F(CliE2ETest, ImportOfRequestsTooLargeForTheServerSaysUseASmallerBatch) {
  ASSERT_EQ(server_.Stop(), 0);
  ASSERT_TRUE(server_.Start({"--max-message-bytes", "65536"})) << server_.error();
  CreateTable("large");
  const int64_t now = NowMillis();
  std::string csv = "time,host,cpu\n";
  for (int i = 0; i < 10'000; ++i) {
    csv += std::to_string(now - i) + ",host-" + std::to_string(i) + "," + std::to_string(i) + "\n";
  }
  WriteFile(Path("large.csv"), csv);
  ProcessResult r = Cli({"import", "mydb", "large", Path("large.csv"), "--batch-size", "10000",
                         "--progress", "none"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr("a request of 10000 records")) << r.err;
  EXPECT_THAT(r.err, HasSubstr("import with a smaller --batch-size"));
  // The same file in requests that fit.
  r = Cli(
      {"import", "mydb", "large", Path("large.csv"), "--batch-size", "500", "--progress", "none"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count("mydb.large"), "10000");
}

// A server that stops and starts again during an import (a restart, a cluster node's failover)
// is waited for: the requests it could not take are sent again once it is back, and every
// record is stored once. A server never reached ends the import at once, as before.
TEST_F(CliE2ETest, ImportSendsAgainWhileTheServerRestarts) {
  CreateTable("restart");
  // Lines written as the test goes, so that the import is still reading when the server stops.
  const std::string fifo = Path("lines.lp");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  PtyProcess import(Argv({"import", "mydb", "restart", fifo, "--format", "lp", "--batch-size",
                          "100", "--parallel", "2", "--progress", "none"}),
                    {"HOME=" + dir_.path().string()});
  // Opened once the import opened its end; not inherited by the server started again, which
  // would keep the import from ever reading its end.
  int lines = ::open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(lines, 0) << std::strerror(errno);
  const int64_t now_ns = NowMillis() * 1'000'000;
  auto write = [&](int from, int to) {
    std::string text;
    for (int i = from; i < to; ++i) {
      text += "cpu,host=h" + std::to_string(i % 10) + " v=" + std::to_string(i) + "i " +
              std::to_string(now_ns - i) + "\n";
    }
    ASSERT_EQ(::write(lines, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  };
  write(0, 1000);
  for (int tries = 0; tries < 200 && Count("mydb.restart") != "1000"; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(Count("mydb.restart"), "1000");
  ASSERT_EQ(server_.Stop(), 0);
  write(1000, 2000);
  ASSERT_TRUE(import.WaitFor("the server is away")) << import.output();
  ASSERT_TRUE(server_.Restart()) << server_.error();
  ::close(lines);
  EXPECT_EQ(import.Wait(std::chrono::seconds(60)), 0) << import.output();
  EXPECT_THAT(import.output(), HasSubstr("imported 2000 records"));
  EXPECT_THAT(import.output(), HasSubstr("; requests sent again "));
  EXPECT_THAT(import.output(), HasSubstr(" while the server was away"));
  EXPECT_EQ(
      Ok({"query", "SELECT count(*), count(DISTINCT v), sum(v) FROM mydb.restart", "-f", "csv"}),
      "_col0,_col1,_col2\n2000,2000,1999000\n");

  WriteFile(Path("one.lp"), "cpu,host=h0 v=1i " + std::to_string(now_ns) + "\n");
  ProcessResult bad = Cli({"import", "mydb", "restart", Path("one.lp"), "--retry-seconds", "-1"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--retry-seconds must be 0..86400"));
  ASSERT_EQ(server_.Stop(), 0);
  // Within RunProcess's 30 s, well short of the 60 s a server that answered would be waited.
  ProcessResult unreachable =
      RunProcess(Argv({"import", "mydb", "restart", Path("one.lp"), "--progress", "none"}), "",
                 {"HOME=" + dir_.path().string()}, std::chrono::seconds(30));
  EXPECT_EQ(unreachable.exit_code, 3) << unreachable.out << unreachable.err;
  EXPECT_THAT(unreachable.err, HasSubstr("cannot reach stratad"));
  EXPECT_THAT(unreachable.out, HasSubstr("nothing was stored"));
}

// Golden output of each format for values of every common type.
TEST_F(CliE2ETest, QueryOutputFormatsMatchGoldenFiles) {
  CreateTable("tbl", {"--magnetic-writes", "true"});
  Ok({"write", "mydb", "tbl", "-D", "host=a", "-m", "cpu=0.5", "-m", "mem=10", "-m", "ok=true", "-m",
      "note=plain", "--measure-name", "m", "--time", "2024-05-01T12:00:00Z"});
  Ok({"write", "mydb", "tbl", "-D", "host=b,c", "-m", "cpu=1e-7", "-m", "note=say \"hi\", twice",
      "--measure-name", "m", "--time", "2024-05-01T12:00:01.5Z"});
  const std::string sql =
      "SELECT host, time, cpu, mem, ok, note, date_trunc('hour', time) AS hour, "
      "time - from_iso8601_timestamp('2024-04-30T10:00:00Z') AS since "
      "FROM mydb.tbl ORDER BY host";
  for (const std::string format : {"table", "csv", "json", "jsonl"}) {
    std::string out = Ok({"query", sql, "--format", format});
    std::string golden = std::string(STRATA_CLI_GOLDEN_DIR) + "/query." + format;
    if (std::getenv("STRATA_UPDATE_GOLDEN")) WriteFile(golden, out);
    EXPECT_EQ(out, ReadFile(golden)) << "format " << format << "; rerun with "
                                     << "STRATA_UPDATE_GOLDEN=1 to accept";
  }
  // Not a terminal and no --format: CSV.
  EXPECT_EQ(Ok({"query", sql}), ReadFile(std::string(STRATA_CLI_GOLDEN_DIR) + "/query.csv"));
  // --header types: an export that strata import reads back as it was.
  const std::string exported =
      Ok({"query", "SELECT * FROM mydb.tbl", "-f", "csv", "--header", "types"});
  EXPECT_THAT(exported, ::testing::StartsWith("host:dimension,measure_name:measure_name,time:time,"));
  EXPECT_THAT(exported, HasSubstr("cpu:double"));
  EXPECT_THAT(exported, HasSubstr("ok:boolean"));
  WriteFile(Path("export.csv"), exported);
  CreateTable("copy", {"--magnetic-writes", "true"});
  EXPECT_THAT(Ok({"import", "mydb", "copy", Path("export.csv"), "--progress", "none"}),
              HasSubstr("imported 2 records"));
  const std::string all = "SELECT host, measure_name, time, cpu, mem, ok, note FROM mydb.";
  EXPECT_EQ(Ok({"query", all + "copy ORDER BY host", "-f", "csv"}),
            Ok({"query", all + "tbl ORDER BY host", "-f", "csv"}));
  EXPECT_EQ(Cli({"query", "SELECT 1", "--header", "kinds"}).exit_code, 2);
  ProcessResult stats = Cli({"query", "SELECT count(*) FROM mydb.tbl", "--stats", "-f", "csv"});
  EXPECT_THAT(stats.err, HasSubstr("1 row in "));
  EXPECT_THAT(stats.err, HasSubstr("scanned 2 rows"));
}

TEST_F(CliE2ETest, QueryErrorsShowTheCaret) {
  ProcessResult r = Cli({"query", "SELEC 1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: expected SELECT but found \"SELEC\"\nLINE 1: SELEC 1\n        ^\n");
  EXPECT_EQ(Cli({"query", "SELECT 1", "--format", "xml"}).exit_code, 2);
  EXPECT_EQ(Ok({"query", "-", "-f", "csv"}, "SELECT 41 + 1 AS answer"), "answer\n42\n");
}

TEST_F(CliE2ETest, ShellRunsStatementsAndMetaCommands) {
  CreateTable("cpu");
  Ok({"write", "mydb", "cpu", "-D", "host=a", "-m", "usage=0.5"});
  PtyProcess shell(Argv({"shell"}), {"HOME=" + dir_.path().string()});
  ASSERT_TRUE(shell.WaitFor("strata> ")) << shell.output();
  // A statement over two lines.
  shell.Type("SELECT host,\r");
  ASSERT_TRUE(shell.WaitFor("-> ")) << shell.output();
  shell.Type("measure_value::double AS v FROM mydb.cpu;\r");
  ASSERT_TRUE(shell.WaitFor("a    | 0.5")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("(1 row)")) << shell.output();
  // Ctrl-C while typing drops the statement, not the shell.
  shell.Type("SELECT nonsense\r");
  ASSERT_TRUE(shell.WaitFor("-> "));
  shell.Type("\x03");
  ASSERT_TRUE(shell.WaitFor("^C")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("strata> ")) << shell.output();
  shell.Type("\\l\r");
  ASSERT_TRUE(shell.WaitFor("mydb")) << shell.output();
  shell.Type("\\dt mydb\r");
  ASSERT_TRUE(shell.WaitFor("cpu")) << shell.output();
  shell.Type("\\d mydb.cpu\r");
  ASSERT_TRUE(shell.WaitFor("MEASURE_VALUE")) << shell.output();
  shell.Type("\\timing\r");
  ASSERT_TRUE(shell.WaitFor("Timing is on.")) << shell.output();
  shell.Type("SELECT 1 AS x; SELEC 2;\r");
  ASSERT_TRUE(shell.WaitFor("Time: ")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("LINE 1: SELEC 2")) << shell.output();
  shell.Type("\\bogus\r");
  ASSERT_TRUE(shell.WaitFor("unknown command \\bogus")) << shell.output();
  shell.Type("\\q\r");
  EXPECT_EQ(shell.Wait(), 0) << shell.output();
  EXPECT_THAT(shell.output(), Not(HasSubstr("nonsense FROM")));
  // History is kept for the next session.
  // (libedit's history file escapes spaces as \040.)
  EXPECT_THAT(ReadFile(Path(".strata_history")), HasSubstr("SELECT\\0401\\040AS\\040x;"));
}

TEST_F(CliE2ETest, UseSetsTheDatabaseOfUnqualifiedTableNames) {
  CreateTable("cpu");
  Ok({"write", "mydb", "cpu", "-D", "host=a", "-m", "usage=0.5"});
  PtyProcess shell(Argv({"shell"}), {"HOME=" + dir_.path().string()});
  ASSERT_TRUE(shell.WaitFor("strata> ")) << shell.output();
  shell.Type("SELECT count(*) AS n FROM cpu;\r");
  ASSERT_TRUE(shell.WaitFor("or set a default database (USE db in the shell")) << shell.output();
  shell.Type("USE nope;\r");
  ASSERT_TRUE(shell.WaitFor("nope")) << shell.output();
  shell.Type("USE mydb;\r");
  ASSERT_TRUE(shell.WaitFor("using database mydb")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("strata:mydb> ")) << shell.output();
  shell.Type("SELECT count(*) AS n FROM cpu;\r");
  ASSERT_TRUE(shell.WaitFor("(1 row)")) << shell.output();
  shell.Type("DESCRIBE cpu;\r");
  ASSERT_TRUE(shell.WaitFor("MEASURE_VALUE")) << shell.output();
  shell.Type("\\dt\r");
  ASSERT_TRUE(shell.WaitFor("cpu")) << shell.output();
  shell.Type("\\q\r");
  EXPECT_EQ(shell.Wait(), 0) << shell.output();

  EXPECT_EQ(Ok({"query", "SELECT count(*) AS n FROM cpu", "--database", "mydb", "-f", "csv"}), "n\n1\n");
}

TEST_F(CliE2ETest, ShellExpandedOutputFilesScriptsWatchAndPager) {
  CreateTable("cpu");
  std::string csv = "time,host,usage\n";
  const int64_t now = NowMillis();
  for (int i = 0; i < 60; ++i) csv += std::to_string(now - i) + ",h" + std::to_string(i) + ",1.5\n";
  WriteFile(Path("cpu.csv"), csv);
  Ok({"import", "mydb", "cpu", Path("cpu.csv")});
  WriteFile(Path("script.sql"), "SELECT 40 + 2 AS answer;\n\\timing on\nSELECT 'from' || ' file' AS s;\n");
  // A pager that marks what it shows; the pty is 50 rows tall.
  PtyProcess shell(Argv({"shell"}), {"HOME=" + dir_.path().string(),
                                     "STRATA_PAGER=sed s/^/paged:/"});
  ASSERT_TRUE(shell.WaitFor("strata> ")) << shell.output();
  shell.Type("\\x\r");
  ASSERT_TRUE(shell.WaitFor("Expanded display is on.")) << shell.output();
  shell.Type("SELECT 1 AS a, 'two' AS bb;\r");
  ASSERT_TRUE(shell.WaitFor("-[ RECORD 1 ]")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("a  | 1\r\nbb | two")) << shell.output();
  shell.Type("\\x off\r");
  ASSERT_TRUE(shell.WaitFor("Expanded display is off.")) << shell.output();

  shell.Type("\\o " + Path("out.txt") + "\r");
  shell.Type("SELECT count(*) AS n FROM mydb.cpu;\r");
  shell.Type("\\o\r");
  shell.Type("\\i " + Path("script.sql") + "\r");
  ASSERT_TRUE(shell.WaitFor("answer")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("from file")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("Time: ")) << shell.output();
  EXPECT_THAT(ReadFile(Path("out.txt")), HasSubstr("60"));
  EXPECT_THAT(shell.output(), Not(HasSubstr("| 60")));  // went to the file, not the screen

  // 60 rows are taller than the 50-row terminal: through the pager.
  shell.Type("\\timing off\r");
  shell.Type("SELECT host FROM mydb.cpu ORDER BY host;\r");
  ASSERT_TRUE(shell.WaitFor("paged:(60 rows)")) << shell.output();
  shell.Type("SELECT 7 AS seven;\r");  // short: straight to the screen
  ASSERT_TRUE(shell.WaitFor("(1 row)")) << shell.output();
  EXPECT_THAT(shell.output(), Not(HasSubstr("paged:(1 row)")));

  shell.Type("\\watch 0.2\r");
  ASSERT_TRUE(shell.WaitFor("(every 0.2 s)")) << shell.output();
  const size_t first = shell.output().find("(every 0.2 s)");
  ASSERT_TRUE(shell.WaitFor("(every 0.2 s)\r\n\r\nseven")) << shell.output();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_NE(shell.output().find("(every 0.2 s)", first + 1), std::string::npos);
  shell.Type("\x03");
  ASSERT_TRUE(shell.WaitFor("strata> ")) << shell.output();
  shell.Type("\\q\r");
  EXPECT_EQ(shell.Wait(), 0) << shell.output();
}

TEST_F(CliE2ETest, ShellTabCompletesKeywordsTablesAndColumns) {
  CreateTable("cpu");
  Ok({"write", "mydb", "cpu", "-D", "host=a", "-m", "usage_user=0.5"});
  PtyProcess shell(Argv({"shell"}), {"HOME=" + dir_.path().string()});
  ASSERT_TRUE(shell.WaitFor("strata> ")) << shell.output();
  // libedit prints the prompt just before it puts the terminal in raw mode, and
  // flushes what was typed in between: give it a person's pace.
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  // libedit redraws with cursor moves: wait for the completed tails.
  shell.Type("sel\t");
  ASSERT_TRUE(shell.WaitFor("ect ")) << shell.output();
  // A function completes with its "(" and no space.
  shell.Type("upp\t");
  ASSERT_TRUE(shell.WaitFor("er(")) << shell.output();
  shell.Type("'x') AS x, ");
  shell.Type("measure_value::d\t");
  ASSERT_TRUE(shell.WaitFor("ouble ")) << shell.output();
  shell.Type("FROM mydb.c\t");
  ASSERT_TRUE(shell.WaitFor("pu ")) << shell.output();
  shell.Type(";\r");
  // The statement that ran was the completed one.
  ASSERT_TRUE(shell.WaitFor("measure_value::double\r\n")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("X | ")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("(1 row)")) << shell.output();
  shell.Type("\\q\r");
  EXPECT_EQ(shell.Wait(), 0) << shell.output();
}

TEST_F(CliE2ETest, ShellReadsAScriptFromAPipe) {
  ProcessResult r = Cli({"shell"}, "SELECT 1 AS a;\nSELECT\n  2 AS b;\n\\format csv\nSELECT 3 AS c;\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "a\n-\n1\n(1 row)\nb\n-\n2\n(1 row)\nOutput format is csv.\nc\n3\n");
  ProcessResult failing = Cli({"shell"}, "SELECT nope;\nSELECT 1 AS ok;\n");
  EXPECT_EQ(failing.exit_code, 1);
  EXPECT_THAT(failing.out, HasSubstr("ok"));  // later statements still ran
}

class CliCancelTest : public CliE2ETest {
 protected:
  void SetUp() override {
    CliE2ETest::SetUp();
    CreateTable("big");
    int64_t now = NowMillis();
    std::string csv = "time,host,cpu\n";
    for (int i = 0; i < 20000; ++i) {
      csv += std::to_string(now - i) + ",h" + std::to_string(i % 100) + "," + std::to_string(i) + "\n";
    }
    WriteFile(Path("big.csv"), csv);
    Ok({"import", "mydb", "big", Path("big.csv")});
  }
};

// One row per page and a terminal that is not read: the query is surely
// still running when Ctrl-C comes.
TEST_F(CliCancelTest, CtrlCCancelsTheRunningQueryAndNotTheShell) {
  PtyProcess shell(Argv({"shell", "--page-size", "1"}), {"HOME=" + dir_.path().string()});
  ASSERT_TRUE(shell.WaitFor("strata> "));
  shell.Type("SELECT * FROM mydb.big;\r");
  ASSERT_TRUE(shell.WaitFor("| big")) << shell.output();
  shell.Type("\x03");
  ASSERT_TRUE(shell.WaitFor("query cancelled", std::chrono::seconds(30))) << shell.output();
  ASSERT_TRUE(shell.WaitFor("strata> "));
  EXPECT_THAT(shell.output(), Not(HasSubstr("(20000 rows)")));
  shell.Type("SELECT count(*) AS n FROM mydb.big;\r");
  // (Not "20000" alone: the held rows' timestamps contain it.)
  ASSERT_TRUE(shell.WaitFor("20000\r\n(1 row)")) << shell.output();
  ASSERT_TRUE(shell.WaitFor("strata> ")) << shell.output();
  // Ctrl-D ends the shell. libedit prints the prompt just before it puts the
  // terminal in raw mode; a control key typed in between is taken by the
  // cooked terminal. A person cannot be that fast; give the test a person's pace.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  shell.Type("\x04");
  int code = shell.Wait();
  EXPECT_EQ(code, 0) << ::testing::PrintToString(
      shell.output().substr(shell.output().find("query cancelled")));
}

TEST_F(CliCancelTest, CtrlCEndsQueryCommandWith130) {
  PtyProcess query(Argv({"query", "SELECT * FROM mydb.big", "--page-size", "1", "-f", "csv"}));
  ASSERT_TRUE(query.WaitFor(",big,")) << query.output();
  query.Type("\x03");
  EXPECT_EQ(query.Wait(std::chrono::seconds(30)), 130) << query.output().substr(0, 2000);
  EXPECT_THAT(query.output(), HasSubstr("query cancelled"));
}

}  // namespace
}  // namespace strata
