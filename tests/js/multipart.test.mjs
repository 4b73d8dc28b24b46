// Parts of an HTTP 206 answer (www/net/multipart.js): multipart/byteranges bodies, single parts,
// and answers that cannot be read. Run: node --test tests/js/
import test from 'node:test';
import assert from 'node:assert/strict';
import { parseRanges } from '../../www/net/multipart.js';

const enc = (s) => new TextEncoder().encode(s);
const dec = (b) => new TextDecoder().decode(b);

test('a multipart/byteranges body gives each part at its offset', () => {
  const body = enc('--B1\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes 0-3/100\r\n\r\nabcd\r\n'
    + '--B1\r\ncontent-range: bytes 50-51/100\r\n\r\nxy\r\n--B1--\r\n');
  const parts = parseRanges(body, 'multipart/byteranges; boundary=B1', '');
  assert.deepEqual(parts.map((p) => [p.start, dec(p.bytes)]), [[0, 'abcd'], [50, 'xy']]);
  // A quoted boundary.
  assert.equal(parseRanges(body, 'multipart/byteranges; boundary="B1"', '').length, 2);
});

test('a single part is placed by its Content-Range', () => {
  const parts = parseRanges(enc('hello'), 'application/octet-stream', 'bytes 10-14/100');
  assert.deepEqual(parts.map((p) => [p.start, dec(p.bytes)]), [[10, 'hello']]);
  assert.equal(parseRanges(enc('hello'), 'application/octet-stream', ''), null);
});

test('parts without a range or cut short are unreadable', () => {
  const type = 'multipart/byteranges; boundary=B1';
  assert.equal(parseRanges(enc('--B1\r\nContent-Type: x\r\n\r\nabcd\r\n--B1--'), type, ''), null);
  assert.equal(parseRanges(enc('--B1\r\nContent-Range: bytes 0-9/100\r\n\r\nabcd'), type, ''), null);
  assert.equal(parseRanges(enc('--B1\r\nContent-Range: bytes 0-3/100'), type, ''), null);
});
