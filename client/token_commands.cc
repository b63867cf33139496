// `strata token ...`: AuthService, one subcommand each (docs/security.md).
#include <chrono>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "client/command.h"
#include "client/listing.h"
#include "client/text_values.h"

namespace strata::cli {
namespace {

using TokenStub = v1::AuthService::Stub;
template <typename Request, typename Response>
using AuthMethod = grpc::Status (TokenStub::*)(grpc::ClientContext*, const Request&, Response*);

template <typename Request, typename Response>
bool Call(CommandContext& context, AuthMethod<Request, Response> method, const Request& request,
          Response& response) {
  return CallUnary(context, context.connection().auth(), method, request, response);
}

void PrintTokens(const std::vector<v1::Token>& tokens, OutputFormat format) {
  Listing listing({{"name", v1::SCALAR_TYPE_VARCHAR},
                   {"id", v1::SCALAR_TYPE_VARCHAR},
                   {"grants", v1::SCALAR_TYPE_VARCHAR},
                   {"created", v1::SCALAR_TYPE_TIMESTAMP},
                   {"expires", v1::SCALAR_TYPE_TIMESTAMP},
                   {"last_used", v1::SCALAR_TYPE_TIMESTAMP},
                   {"revoked", v1::SCALAR_TYPE_TIMESTAMP}});
  auto optional_time = [](bool set, const google::protobuf::Timestamp& t) {
    return set ? Listing::Time(t) : v1::Datum();
  };
  for (const v1::Token& t : tokens) {
    std::string grants;
    for (const std::string& g : t.grants()) absl::StrAppend(&grants, grants.empty() ? "" : " ", g);
    listing.AddRow({Listing::Text(t.name()), Listing::Text(t.id()), Listing::Text(grants),
                    Listing::Time(t.creation_time()),
                    optional_time(t.has_expiration_time(), t.expiration_time()),
                    optional_time(t.has_last_used_time(), t.last_used_time()),
                    optional_time(t.has_revocation_time(), t.revocation_time())});
  }
  listing.Print(format, std::cout);
}

}  // namespace

void AddTokenCommands(CLI::App& app, CommandContext& context) {
  CLI::App* token = app.add_subcommand(
      "token", "API tokens and their grants (admin token needed, except whoami)");
  token->require_subcommand(1);

  struct CreateArgs {
    std::string name;
    std::vector<std::string> grants;
    std::string expires_in;
  };
  auto create_args = std::make_shared<CreateArgs>();
  CLI::App* create = token->add_subcommand(
      "create", "Create a token; its secret is printed once, on stdout");
  create->add_option("name", create_args->name, "Token name (e.g. telegraf-eu)")->required();
  create->add_option("--grant,-g", create_args->grants,
                     "admin, read:*, read:DB, read:DB/TABLE, write:… (repeatable)");
  create->add_option("--expires-in", create_args->expires_in,
                     "Lifetime, e.g. 12h, 90d, 1y (default: never expires)");
  create->callback([&context, create_args] {
    v1::CreateTokenRequest request;
    request.set_name(create_args->name);
    for (const std::string& g : create_args->grants) request.add_grants(g);
    if (!create_args->expires_in.empty()) {
      auto hours = ParseDurationHours(create_args->expires_in);
      if (!hours.ok() || *hours > 100 * 365 * 24) {
        std::cerr << "error: --expires-in \"" << create_args->expires_in
                  << "\" is not a lifetime like 12h, 90d or 1y (at most 100y)\n";
        context.set_exit_code(ExitCode::kUsage);
        return;
      }
      const auto expires = std::chrono::system_clock::now() + std::chrono::hours(*hours);
      const int64_t seconds =
          std::chrono::duration_cast<std::chrono::seconds>(expires.time_since_epoch()).count();
      request.mutable_expiration_time()->set_seconds(seconds);
    }
    v1::CreateTokenResponse response;
    if (!Call(context, &TokenStub::CreateToken, request, response)) return;
    // The secret alone on stdout, so `strata token create x > file` keeps it.
    std::cout << response.secret() << "\n";
    std::cerr << "created token \"" << response.token().name() << "\" (id "
              << response.token().id()
              << "); the secret above is shown once: store it now\n";
  });

  auto format = std::make_shared<std::string>();
  CLI::App* list = token->add_subcommand("list", "List tokens (never their secrets)");
  AddFormatOption(*list, *format);
  list->callback([&context, format] {
    auto resolved = ResolveFormat(*format);
    if (!resolved) return context.set_exit_code(ExitCode::kUsage);
    v1::ListTokensResponse response;
    if (!Call(context, &TokenStub::ListTokens, v1::ListTokensRequest(), response)) return;
    PrintTokens({response.tokens().begin(), response.tokens().end()}, *resolved);
  });

  auto revoke_name = std::make_shared<std::string>();
  CLI::App* revoke = token->add_subcommand("revoke", "Revoke a token, effective at once");
  revoke->add_option("token", *revoke_name, "Token name or id")->required();
  revoke->callback([&context, revoke_name] {
    v1::RevokeTokenRequest request;
    request.set_token(*revoke_name);
    v1::RevokeTokenResponse response;
    if (!Call(context, &TokenStub::RevokeToken, request, response)) return;
    std::cout << "revoked token \"" << response.token().name() << "\" (id "
              << response.token().id() << ")\n";
  });

  struct GrantArgs {
    std::string token;
    std::vector<std::string> grants;
  };
  for (const bool add : {true, false}) {
    auto args = std::make_shared<GrantArgs>();
    CLI::App* command = token->add_subcommand(
        add ? "grant" : "ungrant", add ? "Add grants to a token" : "Remove grants from a token");
    command->add_option("token", args->token, "Token name or id")->required();
    command->add_option("grants", args->grants, "admin, read:*, read:DB, read:DB/TABLE, write:…")
        ->required();
    command->callback([&context, args, add] {
      v1::UpdateTokenGrantsRequest request;
      request.set_token(args->token);
      for (const std::string& g : args->grants) {
        add ? request.add_add(g) : request.add_remove(g);
      }
      v1::UpdateTokenGrantsResponse response;
      if (!Call(context, &TokenStub::UpdateTokenGrants, request, response)) return;
      std::cout << "token \"" << response.token().name() << "\" grants:";
      for (const std::string& g : response.token().grants()) std::cout << " " << g;
      std::cout << "\n";
    });
  }

  CLI::App* whoami = token->add_subcommand("whoami", "Show the calling token and its grants");
  whoami->callback([&context] {
    v1::WhoAmIResponse response;
    if (!Call(context, &TokenStub::WhoAmI, v1::WhoAmIRequest(), response)) return;
    if (!response.authentication_enabled()) {
      std::cout << "the server has authentication off: every call may do everything\n";
      return;
    }
    std::cout << response.name() << ":";
    for (const std::string& g : response.grants()) std::cout << " " << g;
    std::cout << "\n";
  });
}

}  // namespace strata::cli
