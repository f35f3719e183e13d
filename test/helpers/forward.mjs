// Forwards every connection from one socket to another, byte for byte: `node forward.mjs <from> <to>`,
// each `tcp:<port>` (on 127.0.0.1) or `unix:<path>`. test/helpers/quiet-namespace.ts runs it inside a
// network namespace, where a Unix socket in the file system is the only way in or out.
import { createServer, connect } from 'node:net';

const address = (spec) => (spec.startsWith('unix:') ? { path: spec.slice(5) } : { host: '127.0.0.1', port: Number(spec.slice(4)) });
const [from, to] = process.argv.slice(2).map(address);

const server = createServer((inbound) => {
  const outbound = connect(to);
  inbound.pipe(outbound).pipe(inbound);
  inbound.on('error', () => outbound.destroy());
  outbound.on('error', () => inbound.destroy());
});
server.listen(from, () => process.stdout.write('forwarding\n'));
// The test that started it ends it by closing our stdin (or by dying).
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
