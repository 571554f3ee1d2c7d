import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import type { Host, Json, ToolResult } from './bridge.js'
import { errorOf, marks } from './mount.js'
import { errorInWords, type PostView, postState, profileName, type Tone, targetState } from './words.js'

/** The small parts the views share: a chip, a post's per-profile status, a button that calls a tool. */

export const Chip = ({ tone, children }: { tone: Tone; children: ComponentChildren }) => (
  <span class={`chip ${tone}`}>{children}</span>
)

/** A network's mark in its colour, with its name beside it (the name says it; the mark only helps). */
export function NetworkMark({ platform }: { platform: string }) {
  const path = marks[platform]
  if (!path) return <span class="dot" aria-hidden="true" />
  return (
    <svg class={`mark net-${platform}`} viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path fill-rule="evenodd" d={path} />
    </svg>
  )
}

/** Each profile's copy of a post: its state, its live link, or its error in words. */
export function PostStatus({ host, post }: { host: Host; post: PostView }) {
  const state = postState(post)
  return (
    <section class="card" aria-label="What happened">
      <p class="post-head">
        <Chip tone={state.tone}>{state.words}</Chip>
        <span class="muted">
          Post {post.id} · {post.scheduleDate} {post.scheduleTime} {post.timezone}
        </span>
      </p>
      <p class="copy-line">{post.content}</p>
      <ul class="targets">
        {post.targets.map((target) => {
          const shown = targetState(target, post)
          return (
            <li>
              <NetworkMark platform={target.platform} />
              <span class="who">{profileName(target.platform, target.username)}</span>
              <Chip tone={shown.tone}>{shown.words}</Chip>
              {target.url ? (
                <button type="button" class="link" onClick={() => void host.openLink(target.url as string)}>
                  Open the live post
                </button>
              ) : null}
              {target.error ? <p class="error">{errorInWords(target.error)}</p> : null}
            </li>
          )
        })}
      </ul>
    </section>
  )
}

/** A button that calls a tool through the host, disabled while the call runs, its refusal shown in words. */
export function ToolButton(props: {
  host: Host
  tool: string
  args: Json
  label: string
  primary?: boolean
  disabled?: boolean
  onAnswer(result: ToolResult): void
}) {
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | undefined>()
  const click = async () => {
    setBusy(true)
    setProblem(undefined)
    try {
      const result = await props.host.callTool(props.tool, props.args)
      const refused = errorOf(result)
      if (refused) setProblem(refused)
      props.onAnswer(result)
    } catch (error) {
      setProblem((error as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button
        type="button"
        class={props.primary ? 'primary' : undefined}
        disabled={busy || props.disabled}
        onClick={() => void click()}
      >
        {busy ? 'Working…' : props.label}
      </button>
      {problem ? (
        <p class="problem" role="alert">
          {problem}
        </p>
      ) : null}
    </>
  )
}
