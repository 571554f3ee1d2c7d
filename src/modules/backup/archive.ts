import { createHash, type Hash } from 'node:crypto'
import { once } from 'node:events'
import fs from 'node:fs'
import { rename, rm, stat } from 'node:fs/promises'
import { type Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip, createGzip } from 'node:zlib'
import tar from 'tar-stream'

/**
 * A backup archive is a gzipped tar (readable by `tar xzf` anywhere) of one folder: `manifest.json` first, the
 * database, the settings and the media, then `checksums.json` last with the SHA-256 of every entry before it,
 * computed while each was written. The writer writes to a `.partial` file and renames it into place only
 * once the archive is whole, so a backup that fails half-way leaves no archive that looks complete.
 */

export const MANIFEST_ENTRY = 'manifest.json'
export const CHECKSUMS_ENTRY = 'checksums.json'

type Sink = ReturnType<tar.Pack['entry']>

export interface ArchiveWriter {
  /** Adds a file from disk under `name` (a path inside the archive's folder). */
  addFile(name: string, file: string): Promise<void>
  addText(name: string, text: string): Promise<void>
  /** The SHA-256 of every entry so far, by name. */
  readonly checksums: Record<string, string>
  /** Ends the archive, moves it to its name, and returns its size in bytes. */
  finish(): Promise<number>
  /** Stops writing and removes what was written. */
  abandon(): Promise<void>
}

export function createArchiveWriter(file: string, folder: string): ArchiveWriter {
  const partial = `${file}.partial`
  const pack = tar.pack()
  const written = pipeline(pack, createGzip(), fs.createWriteStream(partial, { mode: 0o600 }))
  // A failure of the file (a full disk) surfaces at the next entry or at finish, whichever comes first.
  let failure: Error | undefined
  written.catch((error: Error) => {
    failure = error
  })
  const checksums: Record<string, string> = {}
  const entry = async (name: string, size: number, fill: (sink: Sink, hash: Hash) => Promise<void>) => {
    if (failure) throw failure
    const hash = createHash('sha256')
    const ended = new Promise<void>((resolve, reject) => {
      const sink = pack.entry({ name: `${folder}/${name}`, size, mode: 0o600, mtime: new Date() }, (error) =>
        error ? reject(error) : resolve(),
      )
      // streamx's end() takes an optional last chunk; it is typed as required.
      fill(sink, hash).then(() => sink.end(undefined), reject)
    })
    await ended
    checksums[name] = hash.digest('hex')
  }
  return {
    checksums,
    async addFile(name, source) {
      const { size } = await stat(source)
      await entry(name, size, async (sink, hash) => {
        for await (const chunk of fs.createReadStream(source)) {
          hash.update(chunk as Buffer)
          if (!sink.write(chunk)) await once(sink, 'drain')
        }
      })
    },
    async addText(name, text) {
      const bytes = Buffer.from(text, 'utf8')
      await entry(name, bytes.length, async (sink, hash) => {
        hash.update(bytes)
        sink.write(bytes)
      })
    },
    async finish() {
      pack.finalize()
      await written
      await rename(partial, file)
      return (await stat(file)).size
    },
    async abandon() {
      pack.destroy()
      await written.catch(() => undefined)
      await rm(partial, { force: true })
    },
  }
}

/** One entry as it is read: its name inside the archive's folder, its bytes, and its size. */
export interface ArchiveEntry {
  name: string
  size: number
  stream: Readable
}

/** Why an archive cannot be read as a backup. */
export class ArchiveError extends Error {
  override name = 'ArchiveError'
}

/**
 * Reads the archive entry by entry; `each` must consume the entry's stream (or drain it) before the next is
 * read. Returns the SHA-256 of every entry, computed as it was read.
 */
export async function readArchive(
  file: string,
  each: (entry: ArchiveEntry) => Promise<void>,
): Promise<Record<string, string>> {
  const extract = tar.extract()
  const read = pipeline(fs.createReadStream(file), createGunzip(), extract)
  // A broken archive fails both this pipeline and the loop below; the loop's catch reports it, once.
  read.catch(() => undefined)
  const checksums: Record<string, string> = {}
  let folder: string | undefined
  try {
    for await (const source of extract) {
      const { header } = source
      if (header.type !== 'file') {
        source.resume()
        continue
      }
      const [top, ...rest] = header.name.split('/')
      folder ??= top
      const name = rest.join('/')
      if (top !== folder || !name || name.split('/').some((part) => part === '..' || part === ''))
        throw new ArchiveError(`The archive holds an entry outside its folder: ${header.name}`)
      const hash = createHash('sha256')
      // Every byte passes through the hash on its way to `each`, whatever `each` reads of it.
      const hashing = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk)
          done(null, chunk)
        },
      })
      const pumped = pipeline(source as unknown as Readable, hashing)
      // Observed here too: when the archive breaks mid-entry, the error is reported once, by the loop.
      pumped.catch(() => undefined)
      await each({ name, size: header.size, stream: hashing })
      // Whatever `each` left unread is read here, so the checksum covers the whole entry.
      hashing.resume()
      await pumped
      checksums[name] = hash.digest('hex')
    }
    await read
  } catch (error) {
    await read.catch(() => undefined)
    if (error instanceof ArchiveError) throw error
    throw new ArchiveError(`${file} is not a readable backup archive (${(error as Error).message})`)
  }
  return checksums
}
