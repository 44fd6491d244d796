// Checks this client's reading of invites and addresses against docs/PROTOCOL.md "Invites":
// IPv6 in brackets, the port 4040 when left out, every written form of a fingerprint, and
// what is refused. Exits 1 on the first disagreement, naming it.
"use strict";

const assert = require("node:assert/strict");
const { parseArgs } = require("./play");

const FP = "0B49-6407-FCAC-4196-6B1E-6F9B-62A9-0272";
const read = (address) => { const o = parseArgs([address]); return [o.host, o.port, o.fingerprint]; };
const cases = [
  [`scala40://192.168.1.5:4040/?fp=${FP}`, ["192.168.1.5", 4040, FP]],
  [`scala40://192.168.1.5/?fp=${FP}`, ["192.168.1.5", 4040, FP]],
  [`scala40://[fe80::1]:4041/?fp=${FP}`, ["fe80::1", 4041, FP]],
  [`scala40://[FE80::1]/?fp=${FP.toLowerCase()}`, ["fe80::1", 4040, FP]],
  [`SCALA40://Sala.local:80?fp=${FP.replace(/-/g, "")}`, ["sala.local", 80, FP]],
  [`scala40://h/?fp=${FP.replace(/-/g, ":")}`, ["h", 4040, FP]],
  ["Sala.Local:4041", ["sala.local", 4041, undefined]],
  ["[::1]", ["::1", 4040, undefined]],
  ["fe80::1", ["fe80::1", 4040, undefined]],
];
const refused = [`scala40://h:0/?fp=${FP}`, `scala40://h/?fp=${FP.slice(1)}`, "h:0", "[::1]:x",
  `scala40://h/?fp=${FP}&fp=1111-2222-3333-4444-5555-6666-7777-8888`];
let checked = 0;
try {
  for (const [address, expected] of cases) { assert.deepEqual(read(address), expected, address); checked++; }
  for (const address of refused) { assert.throws(() => read(address), Error, `${address} is refused`); checked++; }
} catch (error) {
  console.error(`FAILED ${error.message}`);
  process.exit(1);
}
console.log(`invites ok: ${checked} cases`);
