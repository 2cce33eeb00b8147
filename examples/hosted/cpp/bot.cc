// A complete hosted truco bot in C++: it plays a random legal action.
//
// ./build.sh compiles it into dist/ (the folder to submit), with the shared libraries it
// needs beside it in dist/lib (found through its rpath, $ORIGIN/lib): the sandbox has no
// network and the arena's machine need not have gRPC for C++. docs/hosting.md tells how
// to submit it:  ./build.sh && arena bot submit mybot dist --runtime exec --entry ./bot
// The arena starts it with ARENA_ADDRESS (unix:/run/arena/referee.sock, plaintext) and
// ARENA_TOKEN (good for one match) in its environment; it exits when its match is over.
#include <cstdlib>
#include <iostream>
#include <random>

#include <grpcpp/grpcpp.h>

#include "truco/v1/bot.grpc.pb.h"

int main() {
  const char* address = std::getenv("ARENA_ADDRESS");
  const char* token = std::getenv("ARENA_TOKEN");
  if (address == nullptr || token == nullptr) {
    std::cerr << "set ARENA_ADDRESS and ARENA_TOKEN\n";
    return 2;
  }
  auto stub = truco::v1::Referee::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  auto stream = stub->Play(&context);

  truco::v1::BotMessage hello;
  hello.mutable_hello()->set_token(token);
  hello.mutable_hello()->set_protocol_version(1);
  hello.mutable_hello()->set_name("cpp-random");
  hello.mutable_hello()->set_concurrency(1);
  stream->Write(hello);

  std::mt19937 choose(std::random_device{}());
  truco::v1::RefereeMessage message;
  while (stream->Read(&message)) {
    if (message.has_decision()) {
      const auto& decision = message.decision();
      const auto& legal = decision.view().legal();
      std::uniform_int_distribution<int> pick(0, legal.size() - 1);
      truco::v1::BotMessage reply;
      reply.mutable_action()->set_match_id(decision.match_id());
      reply.mutable_action()->set_request_id(decision.request_id());
      *reply.mutable_action()->mutable_action() = legal[pick(choose)];
      stream->Write(reply);
    } else if (message.has_match_ended()) {
      std::cerr << "match " << message.match_ended().match_id() << " ended\n";
      stream->WritesDone();
    }
  }
  grpc::Status status = stream->Finish();
  if (!status.ok()) {
    std::cerr << "the referee ended the stream: " << status.error_message() << "\n";
  }
  return status.ok() ? 0 : 1;
}
