import { readFile } from 'node:fs/promises'
import { MediaError } from '../../core/media-port.js'
import type { SafeFetcher } from '../../platform/egress/safe-fetch.js'
import {
  type AspectRatio,
  ImageGenerationError,
  type ImageProvider,
  toDeliveredPng,
} from './image-provider.js'

/** The `size` asked of the API per aspect ratio; the answer is then cropped to the exact delivered size. */
const apiSizes: Record<AspectRatio, string> = {
  '1:1': '1024x1024',
  '4:5': '1024x1280',
  '9:16': '1024x1792',
  '16:9': '1792x1024',
}

export interface ImageApiSettings {
  /** HERALD_IMAGE_API_URL: see {@link imageApiEndpoint}. */
  url: string
  /** HERALD_IMAGE_API_KEY: sent as `Authorization: Bearer <key>` when set. */
  key: string | undefined
  /** HERALD_IMAGE_API_MODEL: sent as `model` when set; otherwise the API's default model. */
  model: string | undefined
  /** Default 120 s. */
  timeoutMs?: number
  /** Operator-configured endpoint: plain fetch. Injected for tests. */
  http?: typeof fetch
  /** A returned image URL is user-controlled content: it goes through the safe fetcher. */
  fetcher: SafeFetcher
}

/**
 * Where generation requests go. HERALD_IMAGE_API_URL names an OpenAI-compatible API:
 * - a URL whose path already ends in `/images/generations` is used as given;
 * - a URL ending in `/v1` gets `/images/generations` appended;
 * - anything else (a bare origin such as `https://api.openai.com`) gets `/v1/images/generations`.
 */
export function imageApiEndpoint(url: string): string {
  const base = url.replace(/\/+$/, '')
  if (/\/images\/generations$/.test(base)) return base
  if (/\/v1$/.test(base)) return `${base}/images/generations`
  return `${base}/v1/images/generations`
}

interface ApiAnswer {
  data?: { b64_json?: string; url?: string }[]
  error?: { message?: string }
}

/**
 * An OpenAI-compatible images API: `POST <endpoint>` with `{model?, prompt, size, n: 1,
 * response_format: 'b64_json'}`. A server that answers with `url` instead is also understood.
 */
export function createImageApiProvider(settings: ImageApiSettings): ImageProvider {
  const endpoint = imageApiEndpoint(settings.url)
  const http = settings.http ?? fetch
  const timeoutMs = settings.timeoutMs ?? 120_000
  return {
    name: 'image-api',
    async generate({ prompt, aspectRatio, signal }) {
      const timeout = AbortSignal.timeout(timeoutMs)
      let response: Response
      try {
        response = await http(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(settings.key ? { authorization: `Bearer ${settings.key}` } : {}),
          },
          body: JSON.stringify({
            ...(settings.model ? { model: settings.model } : {}),
            prompt,
            size: apiSizes[aspectRatio],
            n: 1,
            response_format: 'b64_json',
          }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        })
      } catch (error) {
        const timedOut = timeout.aborted
        throw new ImageGenerationError(
          false,
          timedOut
            ? `The image API did not answer within ${timeoutMs} ms`
            : `The image API could not be reached: ${(error as Error).message}`,
        )
      }
      const text = await response.text()
      let answer: ApiAnswer = {}
      try {
        answer = JSON.parse(text) as ApiAnswer
      } catch {
        answer = {}
      }
      if (!response.ok) {
        const detail = answer.error?.message ? `: ${answer.error.message.slice(0, 300)}` : ''
        // 4xx other than auth and throttling means the request itself was refused (often the prompt).
        const refused =
          response.status >= 400 && response.status < 500 && ![401, 403, 429].includes(response.status)
        throw new ImageGenerationError(refused, `The image API answered HTTP ${response.status}${detail}`)
      }
      const first = answer.data?.[0]
      if (first?.b64_json) return toDeliveredPng(Buffer.from(first.b64_json, 'base64'), aspectRatio)
      if (first?.url) return toDeliveredPng(await download(settings.fetcher, first.url, signal), aspectRatio)
      throw new ImageGenerationError(false, 'The image API answered without an image')
    },
  }
}

async function download(fetcher: SafeFetcher, url: string, signal: AbortSignal | undefined): Promise<Buffer> {
  try {
    const file = await fetcher.fetchToFile(url, { maxBytes: 25 * 1024 * 1024, ...(signal ? { signal } : {}) })
    try {
      return await readFile(file.path)
    } finally {
      await file.dispose()
    }
  } catch (error) {
    if (error instanceof MediaError)
      throw new ImageGenerationError(false, `The generated image could not be fetched: ${error.message}`)
    throw error
  }
}
