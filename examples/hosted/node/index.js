// A complete hosted truco bot for Node.js: it plays a random legal action.
//
// Its folder holds this file, package.json, bot.proto (a copy of the arena's
// proto/truco/v1/bot.proto) and node_modules (npm install): the sandbox has no network,
// so everything travels in the archive. docs/hosting.md tells how to submit it:
//   npm install && arena bot submit mybot .
// The arena starts it with ARENA_ADDRESS (unix:/run/arena/referee.sock, plaintext) and
// ARENA_TOKEN (good for one match) in its environment; it exits when the stream ends.
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
    stream.end();
  }
});
stream.on("error", (error) => {
  console.error(`the referee ended the stream: ${error.details || error.message}`);
  process.exit(error.code === grpc.status.OK ? 0 : 1);
});
stream.on("end", () => process.exit(0));
