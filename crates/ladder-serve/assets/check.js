// "Check it yourself": the browser checks, with its own code and none of the server's answers
// taken on trust, that the event shown on this page is in the log the server signed.
//
// 1. Fetch the checkpoint (C2SP tlog-checkpoint in a C2SP signed note) and verify its Ed25519
//    signature against the verifier key printed on the page (RFC 8032, with the audited @noble/curves).
// 2. Hash the event's line as the log does: leaf = SHA-256(0x00 || line) (RFC 6962, 2.1).
// 3. Fetch the hash tiles the inclusion path needs (C2SP tlog-tiles) and build the path
//    (RFC 6962, 2.1.1), then fold it from the leaf up with SHA-256(0x01 || left || right) and
//    compare with the signed root. Every SHA-256 is the browser's own WebCrypto.
// The element id="check" gets data-result="verified" or "failed" once done.
import { ed25519 } from "@noble/curves/ed25519.js";

const box = document.getElementById("check");
const say = box.querySelector("[data-say]");
const steps = box.querySelector("[data-steps]");

function note(text) {
  const li = document.createElement("li");
  li.textContent = text;
  steps.appendChild(li);
}

function done(result, text) {
  say.textContent = text;
  box.dataset.result = result;
}

const enc = new TextEncoder();
const hex = (b) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const unb64 = (s) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let i = 0;
  for (const p of parts) {
    out.set(p, i);
    i += p.length;
  }
  return out;
};
const sha256 = async (bytes) => new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
const nodeHash = (l, r) => sha256(concat(Uint8Array.of(1), l, r));
const equal = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

// The C2SP verifier key: name+hex(key ID)+base64(0x01 || public key).
async function parseVkey(text) {
  // The name holds no "+"; the base64 key may.
  const cut = text.indexOf("+");
  const [name, id, key] = [text.slice(0, cut), text.slice(cut + 1, cut + 9), text.slice(cut + 10)];
  if (cut < 1 || text[cut + 9] !== "+" || !/^[0-9a-f]{8}$/.test(id)) {
    throw new Error("the verifier key is not name+id+key");
  }
  const raw = unb64(key);
  if (raw.length !== 33 || raw[0] !== 1) throw new Error("the verifier key is not an Ed25519 key");
  const pub = raw.slice(1);
  // Key ID = the first 4 bytes of SHA-256(name || 0x0A || 0x01 || public key).
  const want = (await sha256(concat(enc.encode(name), Uint8Array.of(10), raw))).slice(0, 4);
  if (hex(want) !== id) throw new Error("the verifier key's ID does not match its name and key");
  return { name, id: want, pub };
}

// A C2SP signed note: the text (ending in a newline), a blank line, then signature lines
// "— name base64(key ID || signature)". Returns the text if a line by the key verifies.
async function openNote(note, key) {
  const cut = note.lastIndexOf("\n\n");
  if (cut < 0) throw new Error("the checkpoint has no signature");
  const text = note.slice(0, cut + 1);
  const lines = note.slice(cut + 2).split("\n").filter((l) => l !== "");
  for (const line of lines) {
    const m = /^\u2014 (\S+) (\S+)$/.exec(line);
    if (!m || m[1] !== key.name) continue;
    const sig = unb64(m[2]);
    if (sig.length !== 68 || !equal(sig.slice(0, 4), key.id)) continue;
    // zip215: false is RFC 8032's encoding rules, the ones the server's ed25519-dalek keeps.
    if (ed25519.verify(sig.slice(4), enc.encode(text), key.pub, { zip215: false })) return text;
    throw new Error("the checkpoint's signature does not verify with the log's key");
  }
  throw new Error("the checkpoint carries no signature by the log's key");
}

// The tile path of tile N at level L, of width W when partial (C2SP tlog-tiles).
function tilePath(level, n, width) {
  const digits = String(n).padStart(3, "0");
  const groups = [];
  for (let end = digits.length; end > 0; end -= 3) groups.unshift(digits.slice(Math.max(0, end - 3), end));
  while (groups[0].length < 3) groups[0] = "0" + groups[0];
  const path = groups.map((g, i) => (i < groups.length - 1 ? "x" + g : g)).join("/");
  return `tile/${level}/${path}` + (width < 256 ? `.p/${width}` : "");
}

function makeTree(base, size) {
  const tiles = new Map();
  async function tile(level, n) {
    // Hashes at height 8 * level: floor(size / 256^level) of them.
    const count = Math.floor(size / 256 ** level);
    const width = Math.min(256, count - n * 256);
    const path = tilePath(level, n, width);
    if (!tiles.has(path)) {
      tiles.set(path, (async () => {
        const r = await fetch(`${base}/${path}`, { cache: "no-store" });
        if (!r.ok) throw new Error(`${path}: HTTP ${r.status}`);
        const b = new Uint8Array(await r.arrayBuffer());
        if (b.length !== 32 * width) throw new Error(`${path}: ${b.length} bytes, not ${32 * width}`);
        note(`fetched ${path}`);
        return b;
      })());
    }
    return tiles.get(path);
  }
  // The hash of the complete subtree of 2^height leaves at position index.
  async function subtree(height, index) {
    const level = Math.floor(height / 8);
    const below = height - 8 * level;
    const first = index * 2 ** below;
    let row = [];
    for (let i = first; i < first + 2 ** below; i++) {
      const t = await tile(level, Math.floor(i / 256));
      const k = i % 256;
      row.push(t.slice(32 * k, 32 * k + 32));
    }
    while (row.length > 1) {
      const up = [];
      for (let i = 0; i < row.length; i += 2) up.push(await nodeHash(row[i], row[i + 1]));
      row = up;
    }
    return row[0];
  }
  // MTH of the leaves [start, start + n) (RFC 6962, 2.1), from complete subtrees.
  async function mth(start, n) {
    if ((n & (n - 1)) === 0) {
      const h = Math.log2(n);
      return subtree(h, start / n);
    }
    const k = 2 ** Math.floor(Math.log2(n - 1));
    return nodeHash(await mth(start, k), await mth(start + k, n - k));
  }
  // PATH(m, D[start, start + n)) (RFC 6962, 2.1.1), leaf first.
  async function path(m, start, n) {
    if (n <= 1) return [];
    const k = 2 ** Math.floor(Math.log2(n - 1));
    if (m < k) return [...(await path(m, start, k)), await mth(start + k, n - k)];
    return [...(await path(m - k, start + k, n - k)), await mth(start, k)];
  }
  return { path };
}

// The root from a leaf hash and its path (RFC 6962, 2.1.1; RFC 9162, 2.1.3.2).
async function rootFrom(index, size, leaf, path) {
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of path) {
    if (sn === 0) throw new Error("the path is longer than the tree");
    if (fn % 2 === 1 || fn === sn) {
      r = await nodeHash(p, r);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) throw new Error("the path is shorter than the tree");
  return r;
}

async function check() {
  const seq = Number(box.dataset.seq);
  const base = box.dataset.log;
  if (!window.crypto || !crypto.subtle) {
    throw new Error("this browser offers no WebCrypto here (it needs HTTPS or localhost)");
  }
  const key = await parseVkey(box.dataset.vkey);
  note(`log key ${key.name}, ID ${hex(key.id)}`);
  let text;
  let size;
  let root;
  // The event may be newer than the last signed checkpoint: wait for one that holds it.
  for (let tries = 0; ; tries++) {
    const r = await fetch(`${base}/checkpoint`, { cache: "no-store" });
    if (!r.ok) throw new Error(`checkpoint: HTTP ${r.status}`);
    text = await openNote(await r.text(), key);
    const [origin, sizeLine, rootLine] = text.split("\n");
    if (origin !== key.name && origin !== box.dataset.origin) {
      throw new Error(`the checkpoint is of another log (${origin})`);
    }
    size = Number(sizeLine);
    root = unb64(rootLine);
    if (!Number.isSafeInteger(size) || root.length !== 32) throw new Error("the checkpoint is malformed");
    if (size >= seq || tries >= 5) break;
    await new Promise((ok) => setTimeout(ok, 1000));
  }
  note(`checkpoint signed by the log's key: ${size} events, root ${hex(root)}`);
  if (size < seq) throw new Error(`the signed tree holds ${size} events, not yet event ${seq}`);
  const line = document.getElementById("leaf").textContent;
  const leaf = await sha256(concat(Uint8Array.of(0), enc.encode(line)));
  note(`leaf hash of the line above: ${hex(leaf)}`);
  const tree = makeTree(base, size);
  const path = await tree.path(seq - 1, 0, size);
  note(`inclusion path: ${path.length} hashes from the tiles`);
  const got = await rootFrom(seq - 1, size, leaf, path);
  if (!equal(got, root)) {
    throw new Error(`the path leads to ${hex(got)}, not to the signed root`);
  }
  return `Verified: event ${seq} is in the log of ${size} events that the key ${key.name} signed.`;
}

check().then(
  (text) => done("verified", text),
  (e) => done("failed", `Failed: ${e.message}`),
);
