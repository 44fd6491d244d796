// The Scala 40 hosts of the LAN, by multicast DNS-SD (docs/PROTOCOL.md "Finding a host on
// the LAN"), with Node's own dgram: one PTR query for _scala40._tcp.local. sent to
// 224.0.0.251:5353 from a port of our own (RFC 6762 6.7: the answers come back to it), then
// the answers read for SRV, TXT and A/AAAA. What is found is a hint, never trust: connect
// and pin its fp as an invite's (tls.js). `node discover.js [seconds]` lists the hosts.
"use strict";

const dgram = require("node:dgram");

const SERVICE = "_scala40._tcp.local";
const TYPES = { 1: "A", 12: "PTR", 16: "TXT", 28: "AAAA", 33: "SRV" };
const FINGERPRINT = /^[0-9A-F]{4}(-[0-9A-F]{4}){7}$/;

// A name at offset i (RFC 1035 4.1.4 compression followed): [name, offset after it].
function readName(buf, i) {
  const labels = [];
  let end = -1;
  for (let hops = 0; hops < 64; hops++) {
    const n = buf[i];
    if (n === undefined) throw new Error("a name runs past the message");
    if (n === 0) return [labels.join("."), end < 0 ? i + 1 : end];
    if ((n & 0xc0) === 0xc0) { if (end < 0) end = i + 2; i = ((n & 0x3f) << 8) | buf[i + 1]; continue; }
    labels.push(buf.subarray(i + 1, i + 1 + n).toString("utf8"));
    i += 1 + n;
  }
  throw new Error("a name that loops");
}

// One mDNS message → its records: { name, type, ttl, data }.
function decodeMessage(buf) {
  const count = (k) => buf.readUInt16BE(4 + 2 * k);
  let i = 12;
  for (let q = 0; q < count(0); q++) i = readName(buf, i)[1] + 4;
  const records = [];
  const total = count(1) + count(2) + count(3);
  for (let r = 0; r < total; r++) {
    const [name, at] = readName(buf, i);
    const type = buf.readUInt16BE(at), ttl = buf.readUInt32BE(at + 4), length = buf.readUInt16BE(at + 8);
    const start = at + 10, rdata = buf.subarray(start, start + length);
    let data = rdata;
    if (type === 12) data = readName(buf, start)[0];
    else if (type === 33) data = { port: rdata.readUInt16BE(4), target: readName(buf, start + 6)[0] };
    else if (type === 16) {
      data = {};
      for (let k = 0; k < rdata.length; k += 1 + rdata[k]) {
        const text = rdata.subarray(k + 1, k + 1 + rdata[k]).toString("utf8"), eq = text.indexOf("=");
        if (eq > 0 && !(text.slice(0, eq) in data)) data[text.slice(0, eq)] = text.slice(eq + 1);
      }
    } else if (type === 1) data = [...rdata].join(".");
    else if (type === 28) data = rdata.toString("hex").match(/.{4}/g).join(":").replace(/(^|:)0{1,3}/g, "$1");
    records.push({ name, type: TYPES[type] || type, ttl, data });
    i = start + length;
  }
  return records;
}

// The hosts the records name: { instance, name, fp, open, port, addresses }, only those
// whose fp is a fingerprint and that have an address; the name shown as printable text.
function hostsFrom(records) {
  const by = (type, name) => records.filter((r) => r.type === type && r.name.toLowerCase() === name.toLowerCase());
  const hosts = [];
  for (const ptr of by("PTR", SERVICE)) {
    const [srv] = by("SRV", ptr.data), [txt] = by("TXT", ptr.data);
    if (!srv || !txt || !FINGERPRINT.test(txt.data.fp || "")) continue;
    const addresses = [...by("A", srv.data.target), ...by("AAAA", srv.data.target)].map((r) => r.data);
    if (!addresses.length) continue;
    const instance = ptr.data.slice(0, -SERVICE.length - 1);
    const shown = (txt.data.name || instance).replace(/[\p{C}]/gu, "").slice(0, 40);
    hosts.push({ instance, name: shown, fp: txt.data.fp, open: Number(txt.data.open || 0),
      port: srv.data.port, addresses });
  }
  return hosts;
}

function query() {
  const labels = SERVICE.split(".").map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)]));
  return Buffer.concat([Buffer.from("000000000001000000000000", "hex"), ...labels, Buffer.from("00000c0001", "hex")]);
}

// Asks once, listens for `seconds`, and gives the hosts heard from.
function browse(seconds = 3) {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket({ type: "udp4", reuseAddr: true });
    const records = [];
    socket.on("message", (message) => { try { records.push(...decodeMessage(message)); } catch (_) { /* not mDNS */ } });
    socket.on("error", reject);
    socket.bind(0, () => {
      socket.send(query(), 5353, "224.0.0.251");
      setTimeout(() => { socket.close(); resolve(hostsFrom(records)); }, seconds * 1000);
    });
  });
}

module.exports = { decodeMessage, hostsFrom, browse, query };

if (require.main === module) {
  browse(Number(process.argv[2] || 3)).then((hosts) => {
    for (const h of hosts) {
      const where = h.addresses.map((a) => (a.includes(":") ? `[${a}]` : a));
      console.log(`${h.name}  ${h.open} open  scala40://${where[0]}:${h.port}/?fp=${h.fp}`);
    }
    if (!hosts.length) console.log("no Scala 40 host answered");
  }, (error) => { console.error(error.message); process.exitCode = 1; });
}
