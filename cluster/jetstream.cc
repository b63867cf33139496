#include "cluster/jetstream.h"

#include <nats/nats.h>

#include <cstdlib>
#include <vector>

#include "common/strings.h"

namespace strata::cluster {
namespace {

// How long a node waits for reachable NATS servers to elect their JetStream meta leader.
constexpr std::chrono::seconds kElectionPatience{30};

std::string NatsError(natsStatus status, jsErrCode code) {
  const char* last = nats_GetLastError(nullptr);
  return StrCat(natsStatus_GetText(status),
                code != 0 ? StrCat(" (JetStream error ", static_cast<int>(code), ")") : "",
                last != nullptr && *last != '\0' ? StrCat(": ", last) : "");
}

// TLS and the login, from the node's flags; FAILED_PRECONDITION naming a file it cannot use.
absl::Status Secure(natsOptions* options, const ServiceTls& tls, const NatsLogin& login) {
  auto failed = [](std::string_view flag, const std::string& file, natsStatus s) {
    return absl::FailedPreconditionError(
        StrCat(flag, " ", file, ": ", NatsError(s, static_cast<jsErrCode>(0))));
  };
  natsStatus s = NATS_OK;
  if (tls.enabled()) {
    if ((s = natsOptions_SetSecure(options, true)) != NATS_OK) return failed("--nats-ca", "", s);
    if ((s = natsOptions_LoadCATrustedCertificates(options, tls.ca_file.c_str())) != NATS_OK) {
      return failed("--nats-ca", tls.ca_file, s);
    }
    if (!tls.cert_file.empty() &&
        (s = natsOptions_LoadCertificatesChain(options, tls.cert_file.c_str(),
                                               tls.key_file.c_str())) != NATS_OK) {
      return failed("--nats-cert", tls.cert_file, s);
    }
    if (!tls.server_name.empty() &&
        (s = natsOptions_SetExpectedHostname(options, tls.server_name.c_str())) != NATS_OK) {
      return failed("--nats-server-name", tls.server_name, s);
    }
  }
  if (!login.user.empty() && (s = natsOptions_SetUserInfo(options, login.user.c_str(),
                                                          login.password.c_str())) != NATS_OK) {
    return failed("--nats-user", login.user, s);
  }
  if (!login.creds_file.empty() && (s = natsOptions_SetUserCredentialsFromFiles(
                                        options, login.creds_file.c_str(), nullptr)) != NATS_OK) {
    return failed("--nats-creds", login.creds_file, s);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<JetStream>> JetStream::Connect(
    const std::vector<std::string>& servers, std::string_view client_name,
    std::chrono::milliseconds timeout, const ServiceTls& tls, const NatsLogin& login) {
  std::unique_ptr<JetStream> out(new JetStream());
  std::string urls;
  for (const std::string& server : servers) urls += (urls.empty() ? "" : ",") + server;
  out->urls_ = urls;
  natsOptions* options = nullptr;
  natsStatus s = natsOptions_Create(&options);
  // One server each: libnats reads a comma-separated list in SetURL as one address.
  std::vector<const char*> server_ptrs;
  for (const std::string& server : servers) server_ptrs.push_back(server.c_str());
  if (s == NATS_OK) {
    s = natsOptions_SetServers(options, server_ptrs.data(), static_cast<int>(server_ptrs.size()));
  }
  if (s == NATS_OK) s = natsOptions_SetName(options, std::string(client_name).c_str());
  if (s == NATS_OK) s = natsOptions_SetTimeout(options, timeout.count());
  // A NATS server that goes away is waited for, not given up on: writes answer UNAVAILABLE
  // meanwhile, and the connection comes back by itself.
  if (s == NATS_OK) s = natsOptions_SetMaxReconnect(options, -1);
  if (s == NATS_OK) s = natsOptions_SetReconnectWait(options, 250);
  if (s == NATS_OK) s = natsOptions_SetRetryOnFailedConnect(options, false, nullptr, nullptr);
  if (s != NATS_OK) {
    natsOptions_Destroy(options);
    return absl::InternalError(StrCat("NATS options: ", NatsError(s, static_cast<jsErrCode>(0))));
  }
  if (absl::Status secured = Secure(options, tls, login); !secured.ok()) {
    natsOptions_Destroy(options);
    return secured;
  }
  s = natsConnection_Connect(&out->conn_, options);
  natsOptions_Destroy(options);
  if (s != NATS_OK) {
    const std::string why = NatsError(s, static_cast<jsErrCode>(0));
    return absl::UnavailableError(StrCat(
        "NATS is not reachable at ", urls, ": ", why,
        s == NATS_NOT_PERMITTED || s == NATS_CONNECTION_AUTH_FAILED
            ? "; check --nats-user and --nats-password-file, or --nats-creds"
        : tls.enabled() ? "; start nats-server, fix --nats, or check --nats-ca (and the client "
                          "certificate the servers expect, --nats-cert and --nats-key)"
                        : "; start nats-server or fix --nats"));
  }
  jsOptions js_options;
  jsOptions_Init(&js_options);
  js_options.Wait = timeout.count();
  if (s = natsConnection_JetStream(&out->js_, out->conn_, &js_options); s != NATS_OK) {
    return absl::UnavailableError(
        StrCat("NATS at ", urls, ": ", NatsError(s, static_cast<jsErrCode>(0))));
  }
  // NATS servers just started answer no JetStream request until they elected their meta
  // leader: a timeout from servers that are reachable is waited out for a while (a node
  // started with them used to exit here).
  const auto patience = std::chrono::steady_clock::now() + kElectionPatience;
  jsErrCode code = static_cast<jsErrCode>(0);
  do {
    jsAccountInfo* account = nullptr;
    code = static_cast<jsErrCode>(0);
    s = js_GetAccountInfo(&account, out->js_, nullptr, &code);
    jsAccountInfo_Destroy(account);
  } while (s == NATS_TIMEOUT && std::chrono::steady_clock::now() < patience);
  if (s != NATS_OK) {
    if (code == JSNotEnabledErr || code == JSNotEnabledForAccountErr || s == NATS_NO_RESPONDERS) {
      return absl::FailedPreconditionError(
          StrCat("NATS at ", urls, " has no JetStream; start nats-server with --jetstream (-js)"));
    }
    return absl::UnavailableError(
        StrCat("NATS at ", urls, " has no JetStream answering (", NatsError(s, code),
               "): start nats-server with --jetstream, and a majority of its servers"));
  }
  return out;
}

JetStream::~JetStream() {
  jsCtx_Destroy(js_);
  natsConnection_Destroy(conn_);
}

JetStream::Listening::~Listening() {
  // A drained subscription has delivered its last message (the callback returned).
  if (natsSubscription_Drain(sub_) == NATS_OK) {
    natsSubscription_WaitForDrainCompletion(sub_, 5000);
  }
  natsSubscription_Destroy(sub_);
}

absl::Status JetStream::Announce(const std::string& subject, std::string_view data) {
  natsStatus s =
      natsConnection_Publish(conn_, subject.c_str(), data.data(), static_cast<int>(data.size()));
  if (s != NATS_OK) {
    return absl::UnavailableError(StrCat("NATS did not take a message to ", subject, ": ",
                                         NatsError(s, static_cast<jsErrCode>(0))));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<JetStream::Listening>> JetStream::Listen(
    const std::string& subject, std::function<void(std::string_view data)> on_message) {
  std::unique_ptr<Listening> listening(new Listening());
  listening->on_message_ = std::move(on_message);
  natsStatus s = natsConnection_Subscribe(
      &listening->sub_, conn_, subject.c_str(),
      [](natsConnection*, natsSubscription*, natsMsg* msg, void* closure) {
        static_cast<Listening*>(closure)->on_message_(
            std::string_view(natsMsg_GetData(msg), natsMsg_GetDataLength(msg)));
        natsMsg_Destroy(msg);
      },
      listening.get());
  if (s != NATS_OK) {
    return absl::UnavailableError(StrCat("NATS did not take a subscription to ", subject, ": ",
                                         NatsError(s, static_cast<jsErrCode>(0))));
  }
  return listening;
}

absl::Status JetStream::EnsureStream(const std::string& name, const std::string& subject,
                                     int replicas, std::chrono::milliseconds timeout) {
  jsStreamConfig config;
  jsStreamConfig_Init(&config);
  const char* subjects[] = {subject.c_str()};
  config.Name = name.c_str();
  config.Subjects = subjects;
  config.SubjectsLen = 1;
  config.Storage = js_FileStorage;
  config.Replicas = replicas;
  config.Discard = js_DiscardNew;
  config.Duplicates = int64_t{120} * 1'000'000'000;  // nanoseconds
  config.MaxMsgSize = 8 << 20;
  // Created straight away, then described: JetStream answers the creation of a stream that
  // exists with this configuration as a success, also while another node is still creating
  // it, and a replica that then read it too early was told "stream not found" (NATS 2.9.10;
  // it tried again 500 ms later). The description is answered once the stream is ready.
  jsOptions options;
  jsOptions_Init(&options);
  options.Wait = timeout.count();
  jsStreamInfo* info = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  natsStatus s = js_AddStream(&info, js_, &config, &options, &code);
  jsStreamInfo_Destroy(info);
  // JSStreamNameExistErr: an older node created it with another configuration, fine.
  if (s != NATS_OK && code != JSStreamNameExistErr) {
    return absl::UnavailableError(StrCat("NATS could not create stream ", name, " with ", replicas,
                                         " replicas: ", NatsError(s, code), " (are ", replicas,
                                         " JetStream servers up?)"));
  }
  info = nullptr;
  s = js_GetStreamInfo(&info, js_, name.c_str(), &options, &code);
  jsStreamInfo_Destroy(info);
  if (s != NATS_OK) {
    return absl::UnavailableError(
        StrCat("NATS could not describe stream ", name, ": ", NatsError(s, code)));
  }
  return absl::OkStatus();
}

size_t JetStream::max_payload() const {
  const int64_t most = natsConnection_GetMaxPayload(conn_);
  return most > 0 ? static_cast<size_t>(most) : size_t{1} << 20;
}

absl::StatusOr<PublishAck> JetStream::Publish(const std::string& subject, std::string_view data,
                                              uint64_t expected_last, const std::string& msg_id,
                                              std::chrono::milliseconds timeout) {
  jsPubOptions options;
  jsPubOptions_Init(&options);
  options.MsgId = msg_id.c_str();
  options.ExpectLastSeq = expected_last;
  // A genesis entry must not land behind entries a stale stream-info answer did not show.
  options.ExpectNoMessage = expected_last == 0;
  options.MaxWait = timeout.count();
  jsPubAck* ack = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  natsStatus s = js_Publish(&ack, js_, subject.c_str(), data.data(), static_cast<int>(data.size()),
                            &options, &code);
  if (s != NATS_OK) {
    jsPubAck_Destroy(ack);
    if (s == NATS_MAX_PAYLOAD) {
      return absl::ResourceExhaustedError(StrCat("a log entry of ", data.size(),
                                                 " bytes is over the NATS server's max_payload (",
                                                 max_payload(), " bytes)"));
    }
    if (code == JSStreamWrongLastSequenceErr) {
      return absl::FailedPreconditionError(StrCat("the shard log moved past sequence ",
                                                  expected_last, ": another node leads it now"));
    }
    return absl::UnavailableError(
        StrCat("NATS did not confirm the write to ", subject, ": ", NatsError(s, code)));
  }
  PublishAck out{.sequence = ack->Sequence, .duplicate = ack->Duplicate};
  jsPubAck_Destroy(ack);
  return out;
}

absl::StatusOr<std::optional<std::string>> JetStream::LeaderCopy(
    const std::string& stream, uint64_t sequence, std::chrono::milliseconds timeout) {
  jsOptions options;
  jsOptions_Init(&options);
  options.Wait = timeout.count();
  natsMsg* msg = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  natsStatus s = js_GetMsg(&msg, js_, stream.c_str(), sequence, &options, &code);
  if (s == NATS_NOT_FOUND || code == JSNoMessageFoundErr) {
    natsMsg_Destroy(msg);
    return std::nullopt;
  }
  if (s != NATS_OK) {
    natsMsg_Destroy(msg);
    return absl::UnavailableError(StrCat("NATS could not get entry ", sequence, " of stream ",
                                         stream, " from its leader: ", NatsError(s, code)));
  }
  std::string data(natsMsg_GetData(msg), natsMsg_GetDataLength(msg));
  natsMsg_Destroy(msg);
  return data;
}

absl::StatusOr<LogBounds> JetStream::Bounds(const std::string& stream,
                                            std::chrono::milliseconds timeout) {
  jsOptions options;
  jsOptions_Init(&options);
  options.Wait = timeout.count();
  jsStreamInfo* info = nullptr;
  jsErrCode code = static_cast<jsErrCode>(0);
  natsStatus s = js_GetStreamInfo(&info, js_, stream.c_str(), &options, &code);
  if (s != NATS_OK) {
    jsStreamInfo_Destroy(info);
    return absl::UnavailableError(
        StrCat("NATS could not describe stream ", stream, ": ", NatsError(s, code)));
  }
  const LogBounds bounds{.first = info->State.FirstSeq, .last = info->State.LastSeq};
  jsStreamInfo_Destroy(info);
  return bounds;
}

absl::StatusOr<uint64_t> JetStream::LastSequence(const std::string& stream,
                                                 std::chrono::milliseconds timeout) {
  ASSIGN_OR_RETURN(LogBounds bounds, Bounds(stream, timeout));
  return bounds.last;
}

absl::Status JetStream::Trim(const std::string& stream, uint64_t keep_from,
                             std::chrono::milliseconds timeout) {
  // NATS reads a purge up to sequence 0 or 1 as a purge of every entry (PurgeEx), not of
  // none: never asked.
  if (keep_from <= 1) return absl::OkStatus();
  jsOptions options;
  jsOptions_Init(&options);
  options.Wait = timeout.count();
  options.Stream.Purge.Sequence = keep_from;  // purges the entries below it
  jsErrCode code = static_cast<jsErrCode>(0);
  natsStatus s = js_PurgeStream(js_, stream.c_str(), &options, &code);
  if (s != NATS_OK) {
    return absl::UnavailableError(StrCat("NATS could not trim stream ", stream, " below ",
                                         keep_from, ": ", NatsError(s, code)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<JetStream::Reader>> JetStream::Read(const std::string& stream,
                                                                   const std::string& subject,
                                                                   uint64_t from) {
  jsSubOptions options;
  jsSubOptions_Init(&options);
  options.Stream = stream.c_str();
  options.Ordered = true;
  options.Config.HeadersOnly = true;
  options.Config.DeliverPolicy = js_DeliverByStartSequence;
  options.Config.OptStartSeq = from;
  std::unique_ptr<Reader> reader(new Reader());
  reader->next_ = from;
  jsErrCode code = static_cast<jsErrCode>(0);
  natsStatus s = js_SubscribeSync(&reader->sub_, js_, subject.c_str(), nullptr, &options, &code);
  if (s != NATS_OK) {
    return absl::UnavailableError(
        StrCat("NATS could not read stream ", stream, " from ", from, ": ", NatsError(s, code)));
  }
  return reader;
}

JetStream::Reader::~Reader() {
  if (sub_ == nullptr) return;
  natsSubscription_Unsubscribe(sub_);
  natsSubscription_Destroy(sub_);
}

absl::StatusOr<std::optional<LogMessage>> JetStream::Reader::Next(std::chrono::milliseconds wait) {
  natsMsg* msg = nullptr;
  natsStatus s = natsSubscription_NextMsg(&msg, sub_, wait.count());
  if (s == NATS_TIMEOUT) return std::optional<LogMessage>();
  if (s != NATS_OK) {
    return absl::UnavailableError(
        StrCat("reading the shard log: ", NatsError(s, static_cast<jsErrCode>(0))));
  }
  jsMsgMetaData* meta = nullptr;
  s = natsMsg_GetMetaData(&meta, msg);
  if (s != NATS_OK) {
    natsMsg_Destroy(msg);
    return absl::InternalError("a shard log message without JetStream metadata");
  }
  // The entry's size from the header a headers-only consumer adds; a message that carries its
  // payload instead (should the client library recreate a consumer without the option) has
  // no such header.
  LogMessage out{.sequence = meta->Sequence.Stream,
                 .size = static_cast<size_t>(natsMsg_GetDataLength(msg))};
  const char* size = nullptr;
  if (natsMsgHeader_Get(msg, JSMsgSize, &size) == NATS_OK && size != nullptr) {
    out.size = std::strtoull(size, nullptr, 10);
  }
  jsMsgMetaData_Destroy(meta);
  natsMsg_Destroy(msg);
  // An ordered consumer that was recreated (its NATS server restarted) may deliver again what
  // it delivered before: skipped. One that skips ahead (a NATS server catching up after a
  // restart) is OUT_OF_RANGE: the caller asks the stream leader whether the entries are gone.
  if (out.sequence < next_) return std::optional<LogMessage>();
  if (out.sequence > next_) {
    return absl::OutOfRangeError(
        StrCat("the shard log's reader jumped from sequence ", next_, " to ", out.sequence));
  }
  ++next_;
  return std::optional<LogMessage>(std::move(out));
}

}  // namespace strata::cluster
