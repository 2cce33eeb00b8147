// A complete hosted truco bot for Node.js: it plays a random legal action.
//
// Its folder holds this file, package.json, bot.proto (a copy of the arena's
// proto/truco/v1/bot.proto) and node_modules (npm install): the sandbox has no network,
// so everything travels in the archive. docs/hosting.md tells how to submit it:
//   npm install && arena bot submit mybot .
// The arena starts it with ARENA_ADDRESS (unix:/run/arena/referee.sock, plaintext) and
// ARENA_TOKEN in its environment. That token is a match token ("match." ...): good for
// one match, refused once it is over. So the bot plays that match and exits after its
// MatchEnded, without reconnecting (docs/protocol.md, section 12).
const grpc = require("@grpc/grpc-js");
const loader = require("@grpc/proto-loader");

const proto = grpc.loadPackageDefinition(
  loader.loadSync(__dirname + "/bot.proto", { keepCase: false, defaults: true }),
).truco.v1;
const referee = new proto.Referee(process.env.ARENA_ADDRESS, grpc.credentials.createInsecure());
const stream = referee.Play();

stream.write({
  hello: { token: process.env.ARENA_TOKEN, protocolVersion: 1, name: "node-random", concurrency: 1 },
});
stream.on("data", (message) => {
  if (message.decision) {
    const { matchId, requestId, view } = message.decision;
    const action = view.legal[Math.floor(Math.random() * view.legal.length)];
    stream.write({ action: { matchId, requestId, action } });
  } else if (message.matchEnded) {
    console.error(`match ${message.matchEnded.matchId} ended: team ${message.matchEnded.winner} won`);
    process.exit(0); // its one match is over: done
  }
});
stream.on("error", (error) => {
  console.error(`the referee ended the stream before the match ended: ${error.details || error.message}`);
  process.exit(1);
});
stream.on("end", () => process.exit(1)); // ended with OK, but no MatchEnded came
