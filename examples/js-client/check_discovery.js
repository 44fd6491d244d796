// Checks discover.js against the response docs/PROTOCOL.md "The records as bytes" shows:
// its records decoded, and the host listed as the docs say. Exits 1 on a disagreement.
"use strict";

const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { decodeMessage, hostsFrom, query } = require("./discover");

const protocol = fs.readFileSync(path.resolve(__dirname, "..", "..", "docs", "PROTOCOL.md"), "utf8");
const dump = protocol.split("The whole response a host sends")[1].split("```text\n")[1].split("```")[0];
const packet = Buffer.from(dump.replace(/\s+/g, ""), "hex");
const FP = "0B49-6407-FCAC-4196-6B1E-6F9B-62A9-0272";
try {
  assert.equal(packet.length, 194, "the documented response's length");
  const records = decodeMessage(packet);
  assert.deepEqual(records.map((r) => [r.type, r.ttl]), [["PTR", 4500], ["SRV", 120], ["TXT", 4500], ["A", 120]]);
  assert.deepEqual(records[1].data, { port: 4040, target: "scala40-0b496407fcac.local" });
  assert.deepEqual(records[2].data, { txtvers: "1", name: "Sala", fp: FP, open: "2" });
  assert.deepEqual(hostsFrom(records), [{ instance: "Sala 0B49", name: "Sala", fp: FP, open: 2,
    port: 4040, addresses: ["192.168.1.5"] }]);
  // A TXT whose fp is not a fingerprint is not listed.
  const forged = Buffer.from(packet);
  forged[packet.indexOf("fp=0B49") + 3] = "G".charCodeAt(0);
  assert.deepEqual(hostsFrom(decodeMessage(forged)), []);
  assert.equal(query().toString("hex"), "00000000000100000000000008" + Buffer.from("_scala40").toString("hex")
    + "04" + Buffer.from("_tcp").toString("hex") + "05" + Buffer.from("local").toString("hex") + "00" + "000c0001");
} catch (error) {
  console.error(`FAILED ${error.message}`);
  process.exit(1);
}
console.log("discovery ok: the documented response decoded");
