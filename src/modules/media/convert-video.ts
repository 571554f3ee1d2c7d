import { spawn } from 'node:child_process'
import { open, stat } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { MediaError } from '../../core/media-port.js'
import { detectType } from './detect-type.js'
import type { VideoPlan } from './video-plan.js'

/**
 * Carries out a video plan with ffmpeg as a child process, file to file: ffmpeg reads the source and
 * writes the target itself, so no frame passes through Node. The result is H.264 (yuv420p, High profile)
 * with AAC in an MP4 whose index comes first (+faststart), within the plan's picture, frame-rate and
 * bitrate ceilings. Killed on timeout or when the caller's signal fires; failures are a short MediaError.
 *
 * The source is untrusted input to a large C decoder: ffmpeg may open local files only (`-protocol_whitelist
 * file`), reads it with the one demuxer its bytes name (MP4/MOV or WebM; anything else is refused before
 * ffmpeg runs, and `-format_whitelist` keeps nested opens to that demuxer), and runs under a CPU-time and
 * an address-space limit (`ulimit -t` / `-v` in a `sh` that then execs ffmpeg) besides the wall-clock timeout.
 */

export interface ConvertedVideo {
  path: string
  size: number
  contentType: 'video/mp4'
  extension: 'mp4'
  width?: number
  height?: number
}

export interface ConvertVideoOptions {
  /** The ffmpeg executable. */
  ffmpeg: string
  /** Whole-conversion limit in ms; ffmpeg is killed past it. */
  timeoutMs: number
  /** The caller's cancellation (the worker's lease loss): ffmpeg is killed at once. */
  signal?: AbortSignal
  /** x264 speed preset. Default `veryfast`: quality per bit matters less than a bounded publishing delay. */
  preset?: string
  /**
   * Resource limits of the ffmpeg process: CPU seconds (default: the timeout's seconds times the cores, a
   * backstop should the timer fail) and address space in MB (default {@link DEFAULT_MEMORY_MB}).
   */
  limits?: { cpuSeconds?: number | undefined; memoryMb?: number | undefined }
}

export const DEFAULT_MEMORY_MB = 4096

/** The demuxers untrusted video may be read with, by the container its bytes show. */
const DEMUXERS = { mp4: 'mov', mov: 'mov', webm: 'matroska' } as const
export type Demuxer = (typeof DEMUXERS)[keyof typeof DEMUXERS]
/** ffmpeg's full names of those demuxers, as `-format_whitelist` matches them. */
export const DEMUXER_NAMES: Record<Demuxer, string> = {
  mov: 'mov,mp4,m4a,3gp,3g2,mj2',
  matroska: 'matroska,webm',
}

/** The demuxer for a source file, from its first bytes; undefined for anything but MP4, MOV and WebM. */
export async function demuxerFor(source: string): Promise<Demuxer | undefined> {
  const handle = await open(source, 'r')
  try {
    const head = Buffer.alloc(4096)
    const { bytesRead } = await handle.read(head, 0, head.length, 0)
    const detected = detectType(head.subarray(0, bytesRead))
    if (detected?.kind !== 'video') return undefined
    return DEMUXERS[detected.format as keyof typeof DEMUXERS]
  } finally {
    await handle.close()
  }
}

type Plan = Extract<VideoPlan, { action: 'convert' }>

/** ffmpeg's stderr kept for a failure's reason: its last lines, never the whole log. */
const STDERR_TAIL_BYTES = 4096
const REASON_CHARS = 200

/** The ffmpeg arguments for a plan; exported so the tests can read what a plan asks for. */
export function ffmpegArguments(
  source: string,
  plan: Plan,
  target: string,
  preset = 'veryfast',
  demuxer: Demuxer = 'mov',
): string[] {
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y']
  args.push('-protocol_whitelist', 'file', '-format_whitelist', DEMUXER_NAMES[demuxer])
  args.push('-f', demuxer, '-i', source)
  // The first picture and the first sound, if any; subtitles and data tracks are left out.
  args.push('-map', '0:v:0', '-map', '0:a:0?', '-sn', '-dn')
  if (plan.video === 'copy') args.push('-c:v', 'copy')
  else {
    const filters = [
      plan.width && plan.height ? `scale=${plan.width}:${plan.height}` : 'scale=trunc(iw/2)*2:trunc(ih/2)*2',
      ...(plan.frameRate ? [`fps=${plan.frameRate}`] : []),
    ]
    const rate = Math.max(1, Math.floor(plan.videoBitrate))
    args.push(
      '-vf',
      filters.join(','),
      '-c:v',
      'libx264',
      '-preset',
      preset,
      '-profile:v',
      'high',
      '-pix_fmt',
      'yuv420p',
      '-crf',
      '23',
      '-maxrate',
      String(rate),
      '-bufsize',
      String(rate * 2),
    )
  }
  if (plan.audio === 'copy') args.push('-c:a', 'copy')
  else args.push('-c:a', 'aac', '-b:a', '128k')
  args.push('-movflags', '+faststart', '-f', 'mp4', target)
  return args
}

/** @throws {MediaError} `conversion_failed` with a short reason. */
export async function convertVideo(
  source: string,
  plan: Plan,
  target: string,
  options: ConvertVideoOptions,
): Promise<ConvertedVideo> {
  const { signal } = options
  if (signal?.aborted) throw cancelled(signal)
  const demuxer = await demuxerFor(source)
  if (!demuxer)
    throw new MediaError(
      'conversion_failed',
      'The video is not an MP4, MOV or WebM file; Herald converts only those',
    )
  await runFfmpeg(options.ffmpeg, ffmpegArguments(source, plan, target, options.preset, demuxer), options)
  const { size } = await stat(target)
  if (size === 0) throw new MediaError('conversion_failed', 'The video conversion wrote an empty file')
  if (size > plan.maxBytes)
    throw new MediaError(
      'conversion_failed',
      `The converted video is ${Math.ceil(size / 1024 / 1024)} MB, over the network's ${Math.floor(plan.maxBytes / 1024 / 1024)} MB`,
    )
  return {
    path: target,
    size,
    contentType: 'video/mp4',
    extension: 'mp4',
    ...(plan.width && plan.height ? { width: plan.width, height: plan.height } : {}),
  }
}

function cancelled(signal: AbortSignal): MediaError {
  const reason: unknown = signal.reason
  return reason instanceof MediaError
    ? reason
    : new MediaError('conversion_failed', 'The video conversion was cancelled')
}

/** Runs ffmpeg under the conversion's limits (CPU time, memory, the timeout and the caller's signal). */
export function runFfmpeg(ffmpeg: string, args: string[], options: ConvertVideoOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const cpuSeconds =
      options.limits?.cpuSeconds ?? Math.ceil(options.timeoutMs / 1000) * availableParallelism()
    const memoryKb = (options.limits?.memoryMb ?? DEFAULT_MEMORY_MB) * 1024
    // The limits are set in a shell that then becomes ffmpeg; if one cannot be set, ffmpeg does not run.
    const limited = `ulimit -t ${Math.max(1, Math.ceil(cpuSeconds))} || exit 126; ulimit -v ${Math.max(1024, Math.floor(memoryKb))} || exit 126; exec "$0" "$@"`
    const child = spawn('/bin/sh', ['-c', limited, ffmpeg, ...args], { stdio: ['ignore', 'ignore', 'pipe'] })
    let tail = Buffer.alloc(0)
    let failure: MediaError | undefined
    const stop = (error: MediaError) => {
      failure ??= error
      child.kill('SIGKILL')
    }
    const timer = setTimeout(
      () =>
        stop(
          new MediaError(
            'conversion_failed',
            `The video conversion took longer than ${Math.round(options.timeoutMs / 100) / 10} s and was stopped`,
          ),
        ),
      options.timeoutMs,
    )
    const onAbort = () => stop(cancelled(options.signal!))
    options.signal?.addEventListener('abort', onAbort, { once: true })
    child.stderr.on('data', (chunk: Buffer) => {
      tail = Buffer.concat([tail, chunk])
      if (tail.length > STDERR_TAIL_BYTES) tail = tail.subarray(tail.length - STDERR_TAIL_BYTES)
    })
    const finish = (error: MediaError | undefined) => {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
      if (error) reject(error)
      else resolve()
    }
    child.once('error', (error) =>
      finish(
        new MediaError(
          'conversion_failed',
          `ffmpeg could not be started (${(error as NodeJS.ErrnoException).code ?? error.message})`,
        ),
      ),
    )
    child.once('close', (code, signal) => {
      if (failure) return finish(failure)
      if (code === 0) return finish(undefined)
      // The shell's own answers: 127 when ffmpeg is not there, 126 when it cannot run or a limit cannot be set.
      if (code === 127)
        return finish(new MediaError('conversion_failed', 'ffmpeg could not be started (ENOENT)'))
      if (code === 126)
        return finish(new MediaError('conversion_failed', `ffmpeg could not be started: ${lastLine(tail)}`))
      if (signal === 'SIGXCPU' || signal === 'SIGKILL')
        return finish(
          new MediaError(
            'conversion_failed',
            'The video conversion used up its CPU-time limit and was stopped',
          ),
        )
      finish(new MediaError('conversion_failed', `The video could not be converted: ${lastLine(tail)}`))
    })
  })
}

/** The last meaningful line ffmpeg wrote, trimmed to a short reason (paths are the temp files' own). */
function lastLine(stderr: Buffer): string {
  const lines = stderr
    .toString('utf8')
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean)
  const line = lines.at(-1) ?? 'ffmpeg failed'
  return line.length > REASON_CHARS ? `${line.slice(0, REASON_CHARS)}…` : line
}
