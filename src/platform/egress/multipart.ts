import { randomBytes } from 'node:crypto'

/**
 * A multipart/form-data body as bytes, encoded before the request leaves, so `fetch` is never handed a
 * `FormData` (or a `Blob`) to stream itself.
 *
 * Why: Node's bundled undici (7.20 to 7.29, as in Node 24.21.0; 24.22.3's 7.30.2 no longer does) writes a
 * `FormData` body from an async loop that nothing awaits (nodejs/undici#5835). When the upload stops early (the signal aborts, already aborted or mid-body,
 * or the connection resets), fetch cancels the body stream while that loop is still reading the Blob parts;
 * its next `enqueue` throws `TypeError [ERR_INVALID_STATE]: Invalid state: ReadableStream is already
 * closed` into no promise, and Node's default for an unhandled rejection ends the process. A body of bytes
 * is enqueued whole when the request is built, so there is nothing left to race with a cancel.
 *
 * The encoding is the HTML form one (WHATWG "multipart/form-data encoding algorithm"): CRLF line breaks,
 * names and file names with `"`, CR and LF percent-escaped; string values with their line breaks as CRLF.
 */
export async function encodeMultipart(
  form: FormData,
): Promise<{ body: Uint8Array<ArrayBuffer>; contentType: string }> {
  const boundary = `----herald-${randomBytes(12).toString('hex')}`
  const chunks: Uint8Array[] = []
  for (const [name, value] of form) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"`
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`${head}\r\n\r\n${value.replace(/\r?\n|\r/g, '\r\n')}\r\n`, 'utf8'))
      continue
    }
    head += `; filename="${escapeName(value.name)}"\r\nContent-Type: ${value.type || 'application/octet-stream'}`
    chunks.push(Buffer.from(`${head}\r\n\r\n`, 'utf8'))
    // arrayBuffer() reads the Blob whole, with no stream anyone could cancel.
    chunks.push(new Uint8Array(await value.arrayBuffer()))
    chunks.push(Buffer.from('\r\n', 'utf8'))
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'))
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` }
}

const escapeName = (name: string) =>
  name
    .replace(/\r?\n|\r/g, '\r\n')
    .replace(/\n/g, '%0A')
    .replace(/\r/g, '%0D')
    .replace(/"/g, '%22')
