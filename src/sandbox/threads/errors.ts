/** A refusal in Meta's Graph error envelope, as graph.threads.net sends it. */
export class ThreadsApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly extra: { subcode?: number; userMessage?: string; transient?: boolean } = {},
  ) {
    super(message)
  }

  get body() {
    return {
      error: {
        message: this.message,
        type: this.code === 100 ? 'THApiException' : 'OAuthException',
        code: this.code,
        ...(this.extra.subcode !== undefined ? { error_subcode: this.extra.subcode } : {}),
        ...(this.extra.transient !== undefined ? { is_transient: this.extra.transient } : {}),
        ...(this.extra.userMessage ? { error_user_msg: this.extra.userMessage } : {}),
        fbtrace_id: `Sbx${Math.random().toString(36).slice(2, 12)}`,
      },
    }
  }
}
