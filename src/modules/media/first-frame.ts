import { stat } from 'node:fs/promises'
import { MediaError } from '../../core/media-port.js'
import {
  type ConvertVideoOptions,
  DEMUXER_NAMES,
  type Demuxer,
  demuxerFor,
  runFfmpeg,
} from './convert-video.js'

/**
 * The first frame of a video as a JPEG, made by the same ffmpeg and under the same limits and input
 * whitelists as conversions (a video pin's cover when none is given). The video was fetched and probed
 * already; only its first picture is decoded.
 */

/**
 * ffmpeg's arguments for one JPEG frame of `source` (read with `demuxer` only, local files only) written to
 * `target`: the first picture, or the one `filter` picks and sizes (the dashboard's poster frames).
 */
export function frameArguments(
  source: string,
  target: string,
  demuxer: Demuxer,
  choice: { filter?: string; quality: number },
) {
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-y',
    '-protocol_whitelist',
    'file',
    '-format_whitelist',
    DEMUXER_NAMES[demuxer],
    '-f',
    demuxer,
    '-i',
    source,
    '-map',
    '0:v:0',
    ...(choice.filter ? ['-vf', choice.filter] : []),
    '-frames:v',
    '1',
    '-q:v',
    String(choice.quality),
    '-f',
    'image2',
    '-c:v',
    'mjpeg',
    target,
  ]
}

/** The first picture at a pin cover's quality. */
export const firstFrameArguments = (source: string, target: string, demuxer: Demuxer) =>
  frameArguments(source, target, demuxer, { quality: 3 })

/** @throws {MediaError} `conversion_failed` when the frame cannot be made. */
export async function extractFirstFrame(
  source: string,
  target: string,
  options: ConvertVideoOptions,
): Promise<{ path: string; size: number }> {
  const demuxer = await demuxerFor(source)
  if (!demuxer) throw new MediaError('conversion_failed', 'The video is not an MP4, MOV or WebM file')
  await runFfmpeg(options.ffmpeg, firstFrameArguments(source, target, demuxer), options)
  const { size } = await stat(target)
  if (size === 0) throw new MediaError('conversion_failed', 'ffmpeg wrote an empty first frame')
  return { path: target, size }
}
