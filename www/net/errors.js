// Errors of reads over HTTP, naming the URL and what went wrong (with the usual cause of a
// request that fails without an answer: CORS).

/** An error saying `url` cannot be read and why. */
export function cannotRead(url, why) {
  return new Error(`cannot read ${url}: ${why}`);
}

export const CORS_HINT = 'the request failed: network error, or blocked by CORS (a server on another ' +
  'origin must send Access-Control-Allow-Origin, allow the Range header and expose Content-Range)';
