// `strata import`: reads a file line by line, parses records, sends them in
// batches of up to 100 with several WriteRecords calls in flight, and reports
// progress and a summary. Every input line is accounted for: it is ingested,
// or it is rejected with its line number and reason (a malformed line as
// much as a record the server refused); nothing is dropped silently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "client/connection.h"
#include "client/line_reader.h"
#include "client/record_parsers.h"

namespace strata::cli {

enum class OnReject {
  kFail,  // stop at the first rejected line (the batches in flight still finish)
  kSkip,  // go on; report counts and the first reasons
  kLog,   // go on, and write every rejected line with its reason to a file
};

struct ImportOptions {
  std::string database;
  std::string table;
  std::string source_name;  // for messages: the file name or "stdin"
  int64_t source_bytes = 0;  // 0 if unknown (stdin): no percent or ETA
  int batch_size = 100;
  int in_flight = 4;
  OnReject on_reject = OnReject::kSkip;
  std::string reject_log_path;
  // Progress: a redrawn bar (terminal), periodic lines, or nothing.
  enum class Progress { kBar, kLines, kNone } progress = Progress::kNone;
  // How long a request is sent again while a server that answered before is away (a restart,
  // a cluster node's failover); 0: the import stops at once.
  int retry_seconds = 60;
};

struct ImportSummary {
  int64_t lines_read = 0;
  int64_t ingested = 0;
  int64_t rejected = 0;
  // The first rejections by line number: line -> reason.
  std::map<int64_t, std::string> first_rejections;
  // Set when the whole import stopped on an error (unknown table, server gone).
  std::optional<grpc::Status> fatal;
  // The fatal error came back for the first request, which goes alone: no
  // record reached the server.
  bool nothing_sent = false;
  bool interrupted = false;
  // How many times a request was sent again because the server was away
  // (ImportOptions::retry_seconds).
  int64_t resent = 0;
  double seconds = 0;
};

// Runs the import to the end of `input` (or the first rejection with kFail,
// or a fatal error, or Ctrl-C when an InterruptScope is alive).
ImportSummary RunImport(Connection& connection, LineReader& input, RecordParser& parser,
                        const ImportOptions& options);

}  // namespace strata::cli
